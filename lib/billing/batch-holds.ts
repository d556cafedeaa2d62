import { ServiceError } from '../errors/index.js';
import { newId } from '../ids.js';
import { allowancePeriod, isoDate } from '../store/allowance-period.js';
import { insertItemHolds } from '../store/batch/holds.js';
import type { CreditAccount } from '../store/credits.js';
import type { Queryable } from '../store/db.js';
import type { Ledger } from './ledger.js';

/**
 * Holds every batch item's dearest cost at once, in the submission's transaction `tx`: the whole
 * submission is held or none of it (402). The holds are store rows whatever the ledger, settled by the
 * batch lifecycle; the ledger leaves room for the holds it keeps in memory. Returns hold ids in order.
 */
export async function holdBatchItems(tx: Queryable, ledger: Ledger, account: CreditAccount, amountsMicro: number[], now = new Date()): Promise<string[]> {
  if (amountsMicro.length === 0) return [];
  const period = allowancePeriod(account.organizationCreatedAt, now);
  const start = isoDate(period.start);
  const rows = amountsMicro.map((amount) => ({ id: newId(), amount }));
  const total = rows.reduce((sum, row) => sum + row.amount, 0);
  const key = { organizationId: account.organizationId, periodStart: start, environment: account.environment };
  const held = await ledger.holdInStore(key, total, account.monthlyCreditsMicro, (allowanceMicro) => insertItemHolds(tx, account, start, rows, allowanceMicro));
  if (!held) {
    throw new ServiceError('ERR::LIMIT::QUOTA_EXCEEDED', `Monthly credit allowance cannot hold this batch; it resets on ${period.end.toISOString()}`);
  }
  return rows.map((row) => row.id);
}

/**
 * Holds as many of these items as the allowance has room for, first ones first (a crawl's new pages,
 * docs/crawl.md "Billing"): the whole list when it fits (one attempt), else halving the part tried
 * until one fits, then the rest again, so about twice log2(n) attempts. A refused attempt writes
 * nothing. `refusal` is the 402 of the first attempt that did not fit, null when all were held.
 */
export async function holdBatchItemsThatFit(tx: Queryable, ledger: Ledger, account: CreditAccount, amountsMicro: number[], now = new Date()): Promise<{ holdIds: string[]; refusal: ServiceError | null }> {
  const holdIds: string[] = [];
  let refusal: ServiceError | null = null;
  let part = amountsMicro.length;
  while (holdIds.length < amountsMicro.length && part > 0) {
    const next = amountsMicro.slice(holdIds.length, holdIds.length + part);
    try {
      holdIds.push(...(await holdBatchItems(tx, ledger, account, next, now)));
    } catch (error) {
      if (!(error instanceof ServiceError) || error.code !== 'ERR::LIMIT::QUOTA_EXCEEDED') throw error;
      refusal ??= error;
      part = Math.floor(part / 2);
    }
  }
  return { holdIds, refusal };
}
