import type { Config } from '../../lib/config.js';
import { claimItems, type ClaimedItem } from '../../lib/store/batch/leases.js';
import type { Db, Queryable } from '../../lib/store/db.js';
import type { DispatchWaitPoints } from './dispatcher-hooks.js';
import type { ClaimTicket } from './result-writer.js';

export interface ItemClaimsDeps {
  db: Db;
  owner: string;
  config: Pick<Config, 'BATCH_DISPATCH_CAPACITY' | 'BATCH_LEASE_MS' | 'BATCH_HOLD_RETURN_DELAY_MS'>;
  /** False once the dispatcher stops, or while no worker has been heard from. */
  canClaim(): boolean;
  /** Claimed items this dispatcher holds (running or waiting to be written). */
  held(): number;
  /** Starts a claimed item. */
  start(item: ClaimedItem): void;
  /** Claims again soon (after a finishing transaction's claim was given up). */
  wake(): void;
  waitPoints: Pick<DispatchWaitPoints, 'afterClaimInFinish'>;
}

/**
 * How a dispatcher claims queued items (docs/batch.md "Dispatch"): up to its free room, on its own
 * (`soon`) or inside a finishing transaction (`inFinish`). One claim at a time counts the free room,
 * so two never both count the same room; a claim asked for during one runs after it.
 */
export class ItemClaims {
  /** A claim is counting room: held until its items are started (or it is given up). */
  private counting = false;
  private claiming: Promise<void> | null = null;
  private again = false;

  constructor(private readonly deps: ItemClaimsDeps) {}

  /** The claim under way, if any (a stopping dispatcher waits for it). */
  get underWay(): Promise<void> | null {
    return this.claiming;
  }

  /** Claims now, or once more after the claim under way. */
  soon(): Promise<void> {
    if (this.claiming) {
      this.again = true;
      return this.claiming;
    }
    this.claiming = (async () => {
      do {
        this.again = false;
        await this.claim();
      } while (this.again && this.deps.canClaim());
    })().finally(() => {
      this.claiming = null;
    });
    return this.claiming;
  }

  /** Inside a finishing transaction: the room its group frees, and any left, claimed in the same transaction. */
  async inFinish(tx: Queryable, freed: number): Promise<ClaimTicket | null> {
    // The group's items are still held until their write resolves, after the ticket is committed.
    const room = this.deps.config.BATCH_DISPATCH_CAPACITY - this.deps.held() + freed;
    if (this.counting || !this.deps.canClaim() || room <= 0) return null;
    this.counting = true;
    let claimed: ClaimedItem[];
    try {
      claimed = await this.claimInto(tx, room);
      await this.deps.waitPoints.afterClaimInFinish(claimed);
    } catch (error) {
      this.counting = false;
      throw error;
    }
    return {
      committed: () => {
        this.counting = false;
        for (const item of claimed) this.deps.start(item);
      },
      rolledBack: () => {
        this.counting = false;
        this.deps.wake();
      },
    };
  }

  private async claim(): Promise<void> {
    // A gateway that has not yet heard from any worker (just started, or the fleet is down) leaves items
    // queued rather than spending their attempts on ENGINE::UNAVAILABLE.
    if (!this.deps.canClaim()) return;
    const capacity = this.deps.config.BATCH_DISPATCH_CAPACITY;
    if (capacity - this.deps.held() <= 0) return;
    // A finishing transaction is claiming: it wakes the dispatcher if it gives up.
    if (this.counting) return;
    this.counting = true;
    try {
      // Room is counted once the transaction has its connection: items that finished while it waited
      // for one are claimed for in the same statement.
      const claimed = await this.deps.db.transaction(async (tx) => {
        const room = capacity - this.deps.held();
        return room > 0 ? this.claimInto(tx, room) : [];
      });
      for (const item of claimed) this.deps.start(item);
    } finally {
      this.counting = false;
    }
  }

  private claimInto(tx: Queryable, room: number): Promise<ClaimedItem[]> {
    const { owner, config } = this.deps;
    return claimItems(tx, { owner, leaseMs: config.BATCH_LEASE_MS, capacity: room, releaseDelayMs: config.BATCH_HOLD_RETURN_DELAY_MS });
  }
}
