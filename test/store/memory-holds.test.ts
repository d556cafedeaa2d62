import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../lib/errors/index.js';
import { holdBatchItems } from '../../lib/billing/batch-holds.js';
import { settleItemHolds } from '../../lib/store/batch/holds.js';
import { allowanceUsage } from '../../lib/billing/ledger.js';
import { ledgerOf } from '../support/ledger.js';
import type { Db, Queryable } from '../../lib/store/db.js';
import { MemoryLedger } from '../../lib/billing/memory-ledger.js';
import { openStore } from '../../lib/store/open.js';
import { holdTotals } from '../../lib/store/usage.js';
import { newAccount } from '../support/accounts.js';

const CREDIT = 1_000_000;

async function refused(work: Promise<unknown>): Promise<boolean> {
  try {
    await work;
    return false;
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'ERR::LIMIT::QUOTA_EXCEEDED') return true;
    throw error;
  }
}

describe('scrape holds kept in memory by the embedded store (lib/store/memory-holds.ts)', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openStore({ dataDir: null });
  });
  afterAll(async () => {
    await db?.close();
  });

  it('never lets holds taken at once pass the allowance together, and frees a settled hold’s unspent part', async () => {
    const account = await newAccount(db, 5 * CREDIT, { name: 'holds' });
    const attempts = await Promise.all(Array.from({ length: 8 }, () => ledgerOf(db).hold(account, CREDIT).then((r) => r, () => null)));
    const held = attempts.filter((r) => r !== null);
    expect(held).toHaveLength(5);
    expect(await refused(ledgerOf(db).hold(account, 1))).toBe(true);
    expect(await ledgerOf(db).settle(held[0].id, 0)).toBe(true);
    expect(await ledgerOf(db).settle(held[0].id, 0)).toBe(false);
    expect(await ledgerOf(db).settle(held[1].id, CREDIT / 2)).toBe(true);
    // 1.5 credits came free: one more whole credit fits, then half a credit, then nothing.
    await ledgerOf(db).hold(account, CREDIT);
    await ledgerOf(db).hold(account, CREDIT / 2);
    expect(await refused(ledgerOf(db).hold(account, 1))).toBe(true);
  });

  it('shares the allowance exactly with batch holds in the store, both ways', async () => {
    const account = await newAccount(db, 10 * CREDIT, { name: 'holds' });
    const scrape = await ledgerOf(db).hold(account, 4 * CREDIT);
    // The batch may take exactly what the scrape hold left, and no more.
    await expect(db.transaction((tx) => holdBatchItems(tx, ledgerOf(db), account, Array.from({ length: 7 }, () => CREDIT)))).rejects.toThrow(/cannot hold/);
    const batch = await db.transaction((tx) => holdBatchItems(tx, ledgerOf(db), account, Array.from({ length: 6 }, () => CREDIT)));
    expect(await refused(ledgerOf(db).hold(account, 1))).toBe(true);
    // A batch hold settled in the store (unseen by the memory side) makes room the next scrape hold finds.
    await settleItemHolds(db, [{ reservationId: batch[0], requestId: 'item', settle: { chargedMicro: 0, engine: null } }]);
    await ledgerOf(db).hold(account, CREDIT);
    expect(await refused(ledgerOf(db).hold(account, 1))).toBe(true);
    // And a settled scrape hold makes room for a batch.
    expect(await ledgerOf(db).settle(scrape.id, CREDIT)).toBe(true);
    await expect(db.transaction((tx) => holdBatchItems(tx, ledgerOf(db), account, Array.from({ length: 4 }, () => CREDIT)))).rejects.toThrow(/cannot hold/);
    await db.transaction((tx) => holdBatchItems(tx, ledgerOf(db), account, Array.from({ length: 3 }, () => CREDIT)));
    const usage = await allowanceUsage(db, ledgerOf(db), account);
    expect(usage.spentMicro + usage.reservedMicro).toBe(10 * CREDIT);
  });

  it('counts open holds in the usage figures and the reconciliation, and writes each settled row with its charge', async () => {
    const account = await newAccount(db, 10 * CREDIT, { name: 'holds' });
    const first = await ledgerOf(db).hold(account, 3 * CREDIT, 'request-1');
    await ledgerOf(db).hold(account, 2 * CREDIT, 'request-2');
    let usage = await allowanceUsage(db, ledgerOf(db), account);
    expect(usage).toMatchObject({ reservedMicro: 5 * CREDIT, spentMicro: 0 });
    const periodStart = usage.periodStart.slice(0, 10);
    expect(await holdTotals(db, account.organizationId, 'live', periodStart, ledgerOf(db).heldIn({ organizationId: account.organizationId, periodStart: periodStart, environment: 'live' }))).toEqual({ settled_count: 0, charged_micro: 0, open_count: 2, open_micro: 5 * CREDIT });
    await ledgerOf(db).settle(first.id, 5 * CREDIT, 'fetch');
    usage = await allowanceUsage(db, ledgerOf(db), account);
    expect(usage).toMatchObject({ reservedMicro: 2 * CREDIT, spentMicro: 3 * CREDIT });
    expect(await holdTotals(db, account.organizationId, 'live', periodStart, ledgerOf(db).heldIn({ organizationId: account.organizationId, periodStart: periodStart, environment: 'live' }))).toEqual({ settled_count: 1, charged_micro: 3 * CREDIT, open_count: 1, open_micro: 2 * CREDIT });
    const row = await db.query('SELECT request_id, engine, amount_micro, charged_micro, settled_at IS NOT NULL AS settled FROM credit_reservations WHERE id = $1', [first.id]);
    expect(row.rows[0]).toEqual({ request_id: 'request-1', engine: 'fetch', amount_micro: 3 * CREDIT, charged_micro: 3 * CREDIT, settled: true });
  });

  it('group-commits the settlements that queue while a write runs: one statement for them all', async () => {
    const account = await newAccount(db, 100 * CREDIT, { name: 'holds' });
    const statements: string[] = [];
    const counting: Queryable = {
      query: (sql, params, options) => {
        statements.push(options?.name ?? sql);
        return db.query(sql, params, options);
      },
      exec: (sql) => db.exec(sql),
    };
    const holds = new MemoryLedger(counting);
    const key = { organizationId: account.organizationId, periodStart: (await allowanceUsage(db, ledgerOf(db), account)).periodStart.slice(0, 10), environment: 'live' as const };
    const ids = Array.from({ length: 6 }, (_, i) => `hold-${account.organizationId}-${i}`);
    for (const id of ids) {
      expect(await holds.holdInMemory({ ...key, id, projectId: account.projectId, amountMicro: CREDIT, requestId: id, createdAt: new Date() }, account.monthlyCreditsMicro)).toBe(true);
    }
    statements.length = 0;
    const settled = await Promise.all(ids.map((id) => holds.settle(id, CREDIT, 'fetch')));
    expect(settled).toEqual(ids.map(() => true));
    // The write waits for the I/O callbacks ready now, so the six settlements asked for at once go in one statement.
    expect(statements).toEqual(['credits_settle_memory']);
    expect(holds.heldIn(key)).toEqual({ count: 0, micro: 0 });
    expect((await allowanceUsage(db, ledgerOf(db), account)).spentMicro).toBe(6 * CREDIT);
  });
});

describe('a restart of the embedded store', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawler-holds-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('leaves no stray reserved credit: holds open when the process stopped are gone, settled ones stay charged', async () => {
    let db = await openStore({ dataDir });
    const account = await newAccount(db, 10 * CREDIT, { name: 'holds' });
    const settled = await ledgerOf(db).hold(account, 2 * CREDIT);
    await ledgerOf(db).settle(settled.id, CREDIT);
    await ledgerOf(db).hold(account, 3 * CREDIT);
    expect((await allowanceUsage(db, ledgerOf(db), account)).reservedMicro).toBe(3 * CREDIT);
    await db.close();
    db = await openStore({ dataDir });
    try {
      const usage = await allowanceUsage(db, ledgerOf(db), account);
      expect(usage).toMatchObject({ reservedMicro: 0, spentMicro: CREDIT });
      const periodStart = usage.periodStart.slice(0, 10);
      expect(await holdTotals(db, account.organizationId, 'live', periodStart, ledgerOf(db).heldIn({ organizationId: account.organizationId, periodStart, environment: 'live' }))).toMatchObject({ open_count: 0, open_micro: 0, settled_count: 1 });
      // The whole rest of the allowance can be held again.
      await ledgerOf(db).hold(account, 9 * CREDIT);
      expect(await refused(ledgerOf(db).hold(account, 1))).toBe(true);
    } finally {
      await db.close();
    }
  });
});
