import { createLedger } from '../../lib/billing/create-ledger.js';
import type { Ledger } from '../../lib/billing/ledger.js';
import type { Db } from '../../lib/store/db.js';

const ledgers = new WeakMap<Db, Ledger>();

/** The one ledger of a store a test opened itself, as the gateway keeps one (lib/billing/ledger.ts). */
export function ledgerOf(db: Db): Ledger {
  let ledger = ledgers.get(db);
  if (!ledger) ledgers.set(db, (ledger = createLedger(db)));
  return ledger;
}
