import { expiredHoldIds, periodUsage, type CreditAccount, type Hold, type PeriodKey, type PeriodUsage } from '../store/credits.js';
import type { Queryable } from '../store/db.js';

/**
 * The credit ledger every paid operation holds and settles through (docs/platform.md, "Billing"): a
 * hold reserves the dearest possible charge against the allowance month, so concurrent holds never
 * together pass it; its settlement charges at most the hold, exactly once.
 *
 * Two implementations, chosen once by the store (`createLedger`, create-ledger.ts) and passed in with the gateway's
 * context: the embedded store keeps scrape holds in memory (MemoryLedger), PostgreSQL keeps every
 * hold as a row (StoredLedger). Batch submissions always hold in the store (`holdInStore`).
 */
export interface Ledger {
  /** Holds `amountMicro`; throws 402 QUOTA_EXCEEDED naming the reset date when the allowance cannot. */
  hold(account: CreditAccount, amountMicro: number, requestId?: string | null, now?: Date): Promise<Hold>;
  /**
   * Releases the hold and charges `chargedMicro` (at most the hold). True when this call settled it;
   * settling twice is a no-op, so a retried settlement never bills twice. `leaseHolder` names a
   * concurrency lease (lib/store/shared-limits.ts) the same statement deletes, settled or not.
   */
  settle(holdId: string, chargedMicro: number, engine?: string | null, leaseHolder?: string | null): Promise<boolean>;
  /**
   * A hold written by `write` as store rows (a batch submission), which `write` checks against the
   * allowance it is given: the allowance less what this ledger holds elsewhere.
   */
  holdInStore(key: PeriodKey, amountMicro: number, allowanceMicro: number, write: (allowanceMicro: number) => Promise<boolean>): Promise<boolean>;
  /** Open holds this ledger keeps outside the store, which the store's reserved figure leaves out. */
  heldIn(key: PeriodKey): { count: number; micro: number };
  /** Resolves once every settlement asked for so far is written (before the store closes). */
  drain(): Promise<void>;
}

/** The allowance month of `account`: the store's figures and the holds the ledger keeps in memory. */
export function allowanceUsage(db: Queryable, ledger: Ledger, account: CreditAccount, now = new Date()): Promise<PeriodUsage> {
  return periodUsage(db, account, (key) => ledger.heldIn(key), now);
}

/** Releases (charges 0) every expired hold: a crash never bills. */
export async function releaseExpiredHolds(db: Queryable, ledger: Ledger): Promise<number> {
  let released = 0;
  for (const id of await expiredHoldIds(db)) if (await ledger.settle(id, 0)) released += 1;
  return released;
}
