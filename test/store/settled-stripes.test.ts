import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowanceUsage } from '../../lib/billing/ledger.js';
import { ledgerOf } from '../support/ledger.js';
import type { Db } from '../../lib/store/db.js';
import { openStore } from '../../lib/store/open.js';
import { createTestDatabase, distributedServicesAvailable } from '../support/services.js';
import { newAccount } from '../support/accounts.js';

const available = await distributedServicesAvailable();
const CREDIT = 1_000_000;

/**
 * Settlements add to stripe rows, holds update the period row (lib/store/settled-stripes.ts): neither
 * waits for the other's row lock, and the allowance check stays exact.
 */
describe.skipIf(!available)('settlement stripes on PostgreSQL (lib/store/settled-stripes.ts)', () => {
  let database: { url: string; drop(): Promise<void> };
  let db: Db;
  let impatient: Db;
  let locker: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openStore({ databaseUrl: database.url, dataDir: null });
    // A statement of this store that waits for a row lock fails after 2 s instead of waiting on.
    const url = new URL(database.url);
    url.searchParams.set('options', '-c lock_timeout=2000');
    impatient = await openStore({ databaseUrl: url.toString(), dataDir: null });
    locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
  });
  afterAll(async () => {
    await locker?.end();
    await impatient?.close();
    await db?.close();
    await database?.drop();
  });

  /** Runs `work` while another transaction holds the row locks that `lockSql` takes, then rolls it back. */
  async function whileLocked<T>(lockSql: string, organizationId: string, work: () => Promise<T>): Promise<T> {
    await locker.query('BEGIN');
    try {
      const locked = await locker.query(lockSql, [organizationId]);
      expect(locked.rowCount).toBeGreaterThan(0);
      return await work();
    } finally {
      await locker.query('ROLLBACK');
    }
  }

  it('settles while the period row is locked, holds while the stripes are, and the allowance stays exact', async () => {
    const account = await newAccount(db, 10 * CREDIT, { name: 'stripes', concurrencyLimit: 100 });
    const first = await ledgerOf(impatient).hold(account, 6 * CREDIT, 'first');
    const settled = await whileLocked('SELECT 1 FROM credit_periods WHERE organization_id = $1 FOR UPDATE', account.organizationId, () =>
      ledgerOf(impatient).settle(first.id, 4 * CREDIT, 'fetch'),
    );
    expect(settled).toBe(true);
    expect(await ledgerOf(impatient).settle(first.id, 4 * CREDIT, 'fetch')).toBe(false);
    expect(await allowanceUsage(db, ledgerOf(db), account)).toMatchObject({ spentMicro: 4 * CREDIT, reservedMicro: 0 });

    // Spent 4 of 10: a hold of 6 fits, one more credit does not, whatever the stripes' locks.
    const second = await whileLocked('SELECT 1 FROM credit_settled WHERE organization_id = $1 FOR UPDATE', account.organizationId, async () => {
      const held = await ledgerOf(impatient).hold(account, 6 * CREDIT, 'second');
      await expect(ledgerOf(impatient).hold(account, CREDIT, 'third')).rejects.toMatchObject({ code: 'ERR::LIMIT::QUOTA_EXCEEDED' });
      return held;
    });
    expect(await allowanceUsage(db, ledgerOf(db), account)).toMatchObject({ spentMicro: 4 * CREDIT, reservedMicro: 6 * CREDIT });
    // Released at 0, the hold's amount is free again.
    expect(await ledgerOf(db).settle(second.id, 0, 'fetch')).toBe(true);
    expect(await allowanceUsage(db, ledgerOf(db), account)).toMatchObject({ spentMicro: 4 * CREDIT, reservedMicro: 0 });
    const third = await ledgerOf(db).hold(account, 6 * CREDIT, 'third');
    expect(await ledgerOf(db).settle(third.id, 6 * CREDIT, 'fetch')).toBe(true);
    await expect(ledgerOf(db).hold(account, 1, 'fourth')).rejects.toMatchObject({ code: 'ERR::LIMIT::QUOTA_EXCEEDED' });
    expect(await allowanceUsage(db, ledgerOf(db), account)).toMatchObject({ spentMicro: 10 * CREDIT, reservedMicro: 0 });
  });

  it('never lets holds pass the allowance together while settlements commit meanwhile', async () => {
    const account = await newAccount(db, 25 * CREDIT, { name: 'stripes', concurrencyLimit: 100 });
    let held = 0;
    let refused = 0;
    // 16 tasks hold 2 credits and settle 1 of them, until the allowance refuses: every hold
    // runs concurrently with other holds and with settlements moving reserved to spent.
    await Promise.all(
      Array.from({ length: 16 }, async (_, task) => {
        for (let round = 0; round < 10; round += 1) {
          let reservation;
          try {
            reservation = await ledgerOf(db).hold(account, 2 * CREDIT, `task-${task}-${round}`);
          } catch (error) {
            expect(error).toMatchObject({ code: 'ERR::LIMIT::QUOTA_EXCEEDED' });
            refused += 1;
            continue;
          }
          held += 1;
          expect(await ledgerOf(db).settle(reservation.id, CREDIT, 'fetch')).toBe(true);
        }
      }),
    );
    const usage = await allowanceUsage(db, ledgerOf(db), account);
    const ledger = await db.query<{ charged: number; settled: number }>(
      `SELECT sum(charged_micro)::bigint AS charged, count(*)::int AS settled FROM credit_reservations WHERE organization_id = $1`,
      [account.organizationId],
    );
    expect(usage.reservedMicro).toBe(0);
    expect(usage.spentMicro).toBe(held * CREDIT);
    expect(ledger.rows[0]).toEqual({ charged: held * CREDIT, settled: held });
    // Each admitted hold needed 2 credits free: the last one found spent + 2 <= 25, so at most 24 were spent.
    expect(usage.spentMicro).toBeLessThanOrEqual(24 * CREDIT);
    expect(refused).toBe(160 - held);
    // What is left is exactly what a hold can still take.
    const left = 25 * CREDIT - usage.spentMicro;
    await expect(ledgerOf(db).hold(account, left + 1, 'over')).rejects.toMatchObject({ code: 'ERR::LIMIT::QUOTA_EXCEEDED' });
    expect(await ledgerOf(db).settle((await ledgerOf(db).hold(account, left, 'rest')).id, 0, 'fetch')).toBe(true);
  });
});
