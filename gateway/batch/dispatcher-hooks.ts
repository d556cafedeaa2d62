import type { ClaimedItem } from '../../lib/store/batch/leases.js';
import type { ItemOutcome } from './lifecycle.js';

/**
 * Points where a dispatcher waits for whoever started it, each resolved before it goes on. A gateway
 * passes none (each is then a no-op); a test passes some to hold the dispatcher at one point and drive
 * a race deterministically (test/batch/races.test.ts).
 */
export interface DispatchWaitPoints {
  /** An item's scrape is done; its result is not yet written. */
  beforeFinish(item: ClaimedItem, outcome: ItemOutcome): Promise<void>;
  /** Inside the finishing transaction, once the item's hold is settled (job and item locked). */
  afterSettle(item: ClaimedItem): Promise<void>;
  /** A finishing transaction has claimed the next items (its group written, nothing committed yet). */
  afterClaimInFinish(claimed: ClaimedItem[]): Promise<void>;
  /** A hold was found due; it is not yet returned. */
  beforeHoldReturn(due: { job_id: string; seq: number; reservation_id: string | null }): Promise<void>;
}

/** The wait points a caller passes: any of them. */
export type DispatcherHooks = Partial<DispatchWaitPoints>;

const passThrough = async (): Promise<void> => undefined;

/** Every wait point, the ones not given passing straight through. */
export function waitPointsOf(hooks: DispatcherHooks = {}): DispatchWaitPoints {
  return {
    beforeFinish: hooks.beforeFinish ?? passThrough,
    afterSettle: hooks.afterSettle ?? passThrough,
    afterClaimInFinish: hooks.afterClaimInFinish ?? passThrough,
    beforeHoldReturn: hooks.beforeHoldReturn ?? passThrough,
  };
}
