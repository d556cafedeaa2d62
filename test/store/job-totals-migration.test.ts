import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../lib/store/migrate.js';
import type { PgliteDb } from '../../lib/store/pglite-db.js';
import { storeBeforeMigration } from '../support/migration-store.js';

const TOTALS = `SELECT items_queued AS queued, items_running AS running, items_succeeded AS succeeded, items_failed AS failed,
                       items_cancelled AS cancelled, items_skipped AS skipped, items_charged_micro AS charged,
                       items_running_hold_micro AS running_hold, items_bytes AS bytes
                  FROM batch_jobs WHERE id = $1`;

async function insertJob(db: PgliteDb, id: string): Promise<void> {
  await db.query(
    `INSERT INTO batch_jobs (id, organization_id, project_id, environment, status, open, params, project_defaults, concurrency,
       priority, max_attempts, estimated_credits_micro, total_items, submitted_at, results_expire_at)
     VALUES ($1, 'org', 'project', 'live', 'running', false, '{}', '{}', 5, 0, 3, 0, 6, now(), now() + interval '1 day')`,
    [id],
  );
}

/** Items in every status, with charges, holds and sizes; seq 0..5. */
async function insertItems(db: PgliteDb, jobId: string): Promise<void> {
  await db.query(
    `INSERT INTO batch_items (job_id, seq, url, overrides, status, hold_micro, credits_micro, bytes)
     SELECT $1, n, 'http://example.test/' || n, '{}', (ARRAY['queued', 'running', 'running', 'succeeded', 'failed', 'skipped'])[n + 1],
            100 * (n + 1), CASE WHEN n = 3 THEN 70 ELSE 0 END, 10 * n
       FROM generate_series(0, 5) AS n`,
    [jobId],
  );
}

// Migration 014 keeps a job's item totals on its row: it fills them for the jobs already there, and its
// triggers move them with every later write of the items.
describe('batch job totals (migration 014)', () => {
  let db: PgliteDb;
  beforeAll(async () => {
    db = await storeBeforeMigration(14); // foreign keys off: no organization or project rows needed
    await insertJob(db, 'before');
    await insertItems(db, 'before');
    await db.exec(`SET session_replication_role = origin`);
    await migrate(db);
    await db.exec(`SET session_replication_role = replica`);
    await insertJob(db, 'after');
    await db.exec(`SET session_replication_role = origin`);
  });
  afterAll(async () => {
    await db.close();
  });

  const expected = { queued: 1, running: 2, succeeded: 1, failed: 1, cancelled: 0, skipped: 1, charged: 70, running_hold: 500, bytes: 150 };

  it('fills the totals of jobs that existed before it', async () => {
    expect((await db.query(TOTALS, ['before'])).rows[0]).toEqual(expected);
  });

  it('moves them with inserts and updates, and leaves the job row alone when nothing counted changes', async () => {
    await insertItems(db, 'after');
    expect((await db.query(TOTALS, ['after'])).rows[0]).toEqual(expected);
    await db.query(`UPDATE batch_items SET status = 'succeeded', credits_micro = 30, bytes = bytes + 5 WHERE job_id = 'after' AND seq IN (1, 2)`);
    await db.query(`UPDATE batch_items SET status = 'cancelled' WHERE job_id = 'after' AND status = 'queued'`);
    expect((await db.query(TOTALS, ['after'])).rows[0]).toEqual({
      ...expected, queued: 0, running: 0, succeeded: 3, cancelled: 1, charged: 130, running_hold: 0, bytes: 160,
    });
    const xmin = async () => (await db.query<{ xmin: string }>(`SELECT xmin::text AS xmin FROM batch_jobs WHERE id = 'after'`)).rows[0].xmin;
    const before = await xmin();
    await db.query(`UPDATE batch_items SET lease_expires_at = now(), release_at = NULL WHERE job_id = 'after'`);
    expect(await xmin()).toBe(before);
    expect((await db.query(TOTALS, ['before'])).rows[0]).toEqual(expected);
  });
});
