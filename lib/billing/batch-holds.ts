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
