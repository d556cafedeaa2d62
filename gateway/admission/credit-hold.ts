import type { Ledger } from '../../lib/billing/ledger.js';
import { ServiceError } from '../../lib/errors/index.js';
import type { CreditAccount, Hold } from '../../lib/store/credits.js';
import type { ConcurrencySlot } from '../limits/concurrency.js';

/**
 * The one credit hold of a paid operation (a scrape, a remote-browser connection) and its one owner,
 * made by the paid admission (paid-admission.ts) with the operation's concurrency slot: taken there
 * (with the slot, or by the shared limiter's statement with the token and slot), or later by `take`
 * (a scrape holds before its first rung, once the cache missed); settled exactly once, by `settle`
 * or else `release` (at 0). A shared slot's lease row is deleted by the settlement's own statement.
 */
export class CreditHold {
  constructor(
    private readonly ledger: Ledger,
    private readonly account: CreditAccount,
    private readonly requestId: string,
    private readonly slot: Pick<ConcurrencySlot, 'leaseHolder' | 'leaseFreed'>,
    private hold: Hold | null,
  ) {}

  /** True while a hold is taken and not yet settled. */
  get held(): boolean {
    return this.hold !== null;
  }

  /** Holds `amountMicro` (402 QUOTA_EXCEEDED when the allowance cannot), unless a hold is open already. */
  async take(amountMicro: number): Promise<void> {
    if (this.hold) return;
    this.hold = await this.ledger.hold(this.account, amountMicro, this.requestId);
  }

  /**
   * Charges `chargedMicro` (at most the hold). False when the store had no hold to settle: it was lost
   * with a database crash (lib/store/credits.ts), and nothing was charged.
   */
  async settle(chargedMicro: number, engine: string | null): Promise<boolean> {
    const hold = this.hold;
    if (!hold) throw new ServiceError('ERR::INTERNAL::ERROR', 'paid operation ran without a hold');
    this.hold = null;
    const leaseHolder = this.slot.leaseHolder;
    const settled = await this.ledger.settle(hold.id, chargedMicro, engine, leaseHolder);
    if (leaseHolder !== null) this.slot.leaseFreed();
    return settled;
  }

  /** Settles an open hold at 0 (nothing spent it); nothing when none is open. */
  async release(): Promise<void> {
    if (this.hold) await this.settle(0, null);
  }
}
