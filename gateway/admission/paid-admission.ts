import type { Ledger } from '../../lib/billing/ledger.js';
import type { Logger } from '../../lib/log.js';
import type { CreditAccount, Hold } from '../../lib/store/credits.js';
import { concurrencyExceeded, type ConcurrencyLimiter, type ConcurrencySlot } from '../limits/concurrency.js';
import { CreditHold } from './credit-hold.js';

/**
 * A paid operation let in: the organization's concurrency slot and the operation's one credit hold,
 * each taken once here and owned by the operation from then on. It settles `hold` exactly once and
 * releases `slot` when it ends; a refusal after admission gives both back with `giveBackPaid`.
 */
export interface PaidAdmission {
  slot: ConcurrencySlot;
  hold: CreditHold;
}

/** What admitPaid needs of the gateway's context (the context itself; no import of it, docs/architecture.md). */
export interface PaidAdmissionParts {
  concurrency: ConcurrencyLimiter;
  ledger: Ledger;
  logger: Logger;
}

export interface PaidRequest {
  organization: { id: string; concurrency_limit: number };
  /** The ledger account the hold is taken on (auth/credit-account.ts). */
  account: CreditAccount;
  requestId: string;
  /**
   * What the shared limiter's one statement took with the rate token (scrapes on PostgreSQL,
   * limits/postgres.ts): its slot ('full' when none was free, null when it took none) and its hold.
   */
  taken?: { slot: ConcurrencySlot | 'full' | null; hold: Hold | null };
  /** Held now, after the slot (the remote browser's TTL); null: the operation holds later with `hold.take` (a scrape). */
  holdMicro: number | null;
}

/**
 * The one admission step every paid operation shares after its own checks (scrape/admission.ts,
 * browser/open.ts; docs/architecture.md "Paid operations"): the organization's concurrency slot
 * (429 CONCURRENCY_EXCEEDED), then the credit hold (402), the slot given back when the hold is
 * refused. Throws the refusal with nothing left taken.
 */
export async function admitPaid(parts: PaidAdmissionParts, request: PaidRequest): Promise<PaidAdmission> {
  const { organization, taken } = request;
  if (taken?.slot === 'full') throw concurrencyExceeded(organization.concurrency_limit);
  const slot = taken?.slot ?? (await parts.concurrency.acquire(organization.id, organization.concurrency_limit));
  const admission = { slot, hold: new CreditHold(parts.ledger, request.account, request.requestId, slot, taken?.hold ?? null) };
  if (request.holdMicro !== null) {
    try {
      await admission.hold.take(request.holdMicro);
    } catch (error) {
      await giveBackPaid(parts, admission);
      throw error;
    }
  }
  return admission;
}

/** Gives back what a refused operation took: its hold settled at 0 (freeing a shared slot's lease), its slot. */
export async function giveBackPaid(parts: Pick<PaidAdmissionParts, 'logger'>, admission: PaidAdmission): Promise<void> {
  try {
    await admission.hold.release();
  } catch (error) {
    // A failed settlement leaves the hold to the expiry sweep; the slot is still given back.
    parts.logger.warn({ err: error }, 'releasing a hold');
  } finally {
    await admission.slot.release();
  }
}
