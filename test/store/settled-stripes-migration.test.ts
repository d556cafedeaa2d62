import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleStored } from '../../lib/store/stored-settlements.js';
import { migrate } from '../../lib/store/migrate.js';
import type { PgliteDb } from '../../lib/store/pglite-db.js';
import { storeBeforeMigration } from '../support/migration-store.js';

const TOTALS = `SELECT reserved_micro AS reserved, spent_micro AS spent FROM credit_period_totals
                 WHERE organization_id = 'org' AND period_start = '2026-11-01' AND environment = 'live'`;

async function insertHold(db: PgliteDb, id: string, amount: number): Promise<void> {
  await db.query(
    `WITH held AS (UPDATE credit_periods SET reserved_micro = reserved_micro + $2 WHERE organization_id = 'org' RETURNING 1)
     INSERT INTO credit_reservations (id, organization_id, project_id, period_start, environment, amount_micro)
     SELECT $1, 'org', 'project', '2026-11-01', 'live', $2 FROM held`,
    [id, amount],
  );
}

// Migration 015 moves settlements to stripe rows: the figures a month had before it stay its figures,
// holds open across it settle into a stripe, and a settlement written the earlier way (a gateway of the
// previous version during a rolling update) still counts once.
describe('settlement stripes (migration 015)', () => {
  let db: PgliteDb;
  beforeAll(async () => {
    db = await storeBeforeMigration(15); // foreign keys off: no organization row needed
    await db.exec(`INSERT INTO credit_periods (organization_id, period_start, environment, reserved_micro, spent_micro)
                   VALUES ('org', '2026-11-01', 'live', 0, 500)`);
    await insertHold(db, 'open-across', 300);
    await db.exec(`SET session_replication_role = origin`);
    await migrate(db);
  });
  afterAll(async () => {
    await db.close();
  });

  it('keeps the figures from before it and settles a hold held before it into a stripe', async () => {
    expect((await db.query(TOTALS)).rows[0]).toEqual({ reserved: 300, spent: 500 });
    expect(await settleStored(db, { holdId: 'open-across', chargedMicro: 200, engine: 'fetch', leaseHolder: null })).toBe(true);
    expect(await settleStored(db, { holdId: 'open-across', chargedMicro: 200, engine: 'fetch', leaseHolder: null })).toBe(false);
    expect((await db.query(TOTALS)).rows[0]).toEqual({ reserved: 0, spent: 700 });
    expect((await db.query(`SELECT count(*)::int AS stripes FROM credit_settled`)).rows[0]).toEqual({ stripes: 1 });
  });

  it('counts a settlement that moved the month row itself, as the previous version writes it', async () => {
    await insertHold(db, 'earlier-way', 100);
    expect((await db.query(TOTALS)).rows[0]).toEqual({ reserved: 100, spent: 700 });
    await db.query(
      `WITH claimed AS (UPDATE credit_reservations SET settled_at = now(), charged_micro = 40 WHERE id = 'earlier-way' AND settled_at IS NULL
                        RETURNING organization_id, amount_micro, charged_micro)
       UPDATE credit_periods p SET reserved_micro = p.reserved_micro - c.amount_micro, spent_micro = p.spent_micro + c.charged_micro
         FROM claimed c WHERE p.organization_id = c.organization_id`,
    );
    expect((await db.query(TOTALS)).rows[0]).toEqual({ reserved: 0, spent: 740 });
  });
});
