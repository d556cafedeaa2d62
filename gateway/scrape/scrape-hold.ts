import type { Ledger } from '../../lib/billing/ledger.js';
import { holdMicro } from '../../lib/billing/cost.js';
import { ServiceError } from '../../lib/errors/index.js';
import { withoutClimb, type EnginePlan } from '../../lib/scrape/engine-selection.js';
import type { CreditAccount, Hold } from '../../lib/store/credits.js';
import type { ConcurrencySlot } from '../limits/concurrency.js';
import type { PricedScrape } from './plan-and-price.js';

/**
 * The one credit hold of a scrape and its one owner: taken by the admission statement with the slot
 * (scrape/admission.ts) or, when that could not take it, before the first rung (`take`); settled
 * exactly once, by `settle` or else `release` (at 0). A shared slot's lease row is deleted by the
 * settlement's own statement.
 */
export class ScrapeHold {
  constructor(
    private readonly ledger: Ledger,
    private readonly account: CreditAccount,
    private readonly requestId: string,
    private readonly slot: Pick<ConcurrencySlot, 'leaseHolder' | 'leaseFreed'>,
    private hold: Hold | null,
  ) {}

  /**
   * Holds the plan's dearest cost (priced once, plan-and-price.ts) unless held already. Bot-challenge rule 6: when the allowance covers
   * the first rung but not the camoufox climb, the climb is dropped instead of refusing the request.
   */
  async take(priced: PricedScrape): Promise<EnginePlan> {
    const { plan, params } = priced;
    if (this.hold) return plan;
    try {
      this.hold = await this.ledger.hold(this.account, priced.holdMicro, this.requestId);
      return plan;
    } catch (error) {
      if (!plan.climbToCamoufox || !(error instanceof ServiceError) || error.code !== 'ERR::LIMIT::QUOTA_EXCEEDED') throw error;
      const grounded = withoutClimb(plan);
      this.hold = await this.ledger.hold(this.account, holdMicro(grounded, params), this.requestId);
      return grounded;
    }
  }

  /**
   * Charges `chargedMicro` (at most the hold). False when the store had no hold to settle: it was lost
   * with a database crash (lib/store/credits.ts), and nothing was charged.
   */
  async settle(chargedMicro: number, engine: string | null): Promise<boolean> {
    const hold = this.hold;
    if (!hold) throw new ServiceError('ERR::INTERNAL::ERROR', 'scrape ran without a hold');
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
