import { createLedger } from '../../lib/billing/create-ledger.js';
import type { Ledger } from '../../lib/billing/ledger.js';
import type { Db, Queryable } from '../../lib/store/db.js';

const ledgers = new WeakMap<Db, Ledger>();

/** The one ledger of a store a test opened itself, as the gateway keeps one (lib/billing/ledger.ts). */
export function ledgerOf(db: Db): Ledger {
  let ledger = ledgers.get(db);
  if (!ledger) ledgers.set(db, (ledger = createLedger(db)));
  return ledger;
}

/**
 * Spent and reserved micro-credits over every organization of a store, as the period totals hold them:
 * of the live allowance (default), the test one, or both (`all`).
 */
export async function creditTotals(db: Pick<Queryable, 'query'>, environment: 'live' | 'test' | 'all' = 'live'): Promise<{ spent: number; reserved: number }> {
  const where = environment === 'all' ? '' : ' WHERE environment = $1';
  const rows = await db.query<{ spent: number | string; reserved: number | string }>(
    `SELECT COALESCE(SUM(spent_micro), 0) AS spent, COALESCE(SUM(reserved_micro), 0) AS reserved FROM credit_period_totals${where}`,
    environment === 'all' ? [] : [environment],
  );
  return { spent: Number(rows.rows[0].spent), reserved: Number(rows.rows[0].reserved) };
}
