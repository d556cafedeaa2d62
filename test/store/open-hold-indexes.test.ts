import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseExpiredHolds } from '../../lib/billing/ledger.js';
import { ledgerOf } from '../support/ledger.js';
import { migrate } from '../../lib/store/migrate.js';
import type { PgliteDb } from '../../lib/store/pglite-db.js';
import { storeBeforeMigration } from '../support/migration-store.js';

async function insertHold(db: PgliteDb, id: string, expiresAt: string | null): Promise<void> {
  await db.query(
    `INSERT INTO credit_reservations (id, organization_id, project_id, period_start, environment, amount_micro, expires_at)
     VALUES ($1, 'org', 'project', '2026-11-01', 'live', 100, $2)`,
    [id, expiresAt],
  );
}

// Migration 016: the indexes of open holds. A settlement's WHERE (`id ... AND settled_at IS NULL`) implies
// only the predicate of an index keyed by id, so its plan cannot read every open hold to find its own.
describe('open hold indexes (migration 016)', () => {
  let db: PgliteDb;
  beforeAll(async () => {
    db = await storeBeforeMigration(16); // foreign keys off: no organization row needed
    await db.exec(`INSERT INTO credit_periods (organization_id, period_start, environment, reserved_micro) VALUES ('org', '2026-11-01', 'live', 300)`);
    await insertHold(db, 'expired-before', '2026-11-01T00:00:00Z');
    await insertHold(db, 'batch-before', null);
    await migrate(db);
    await insertHold(db, 'expired-after', '2026-11-01T00:00:00Z');
    await db.exec(`SET session_replication_role = origin`);
  });
  afterAll(async () => {
    await db.close();
  });

  it('keeps no index keyed by time whose predicate a settlement implies', async () => {
    const indexes = await db.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'credit_reservations' ORDER BY indexname`,
    );
    expect(indexes.rows.map((row) => row.indexname)).toEqual([
      'credit_reservations_open_id',
      'credit_reservations_org_time',
      'credit_reservations_pkey',
      'credit_reservations_stale',
    ]);
    const definitions = new Map(indexes.rows.map((row) => [row.indexname, row.indexdef]));
    expect(definitions.get('credit_reservations_open_id')).toMatch(/\(id\) WHERE \(settled_at IS NULL\)$/);
    expect(definitions.get('credit_reservations_stale')).toMatch(/\(expires_at\) WHERE \(\(settled_at IS NULL\) AND \(expires_at IS NOT NULL\)\)$/);
  });

  it('still releases the expired scrape holds, from before and after it, and never a batch hold', async () => {
    expect(await releaseExpiredHolds(db, ledgerOf(db))).toBe(2);
    const open = await db.query<{ id: string }>(`SELECT id FROM credit_reservations WHERE settled_at IS NULL`);
    expect(open.rows.map((row) => row.id)).toEqual(['batch-before']);
    expect(await releaseExpiredHolds(db, ledgerOf(db))).toBe(0);
  });
});
