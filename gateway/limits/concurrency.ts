import { ServiceError } from '../../lib/errors/index.js';

export interface ConcurrencySlot {
  limit: number;
  remaining: number;
  /**
   * Gives the slot back; idempotent, never rejects. Resolves once the slot is free on every replica, so a
   * caller answered after it may send its next request at once without a spurious 429.
   */
  release(): Promise<void>;
  /**
   * The shared limiter's lease row (`concurrency_slots.holder`), which the scrape's settlement deletes in
   * its own statement (lib/store/credits.ts); null when the slot is counted in memory.
   */
  readonly leaseHolder: string | null;
  /** Says the lease row is gone (deleted by the caller's statement): `release` then writes nothing. */
  leaseFreed(): void;
}

/** Concurrent requests per organization across its keys; a render holds a slot while it runs. */
export interface ConcurrencyLimiter {
  acquire(organizationId: string, limit: number): Promise<ConcurrencySlot>;
  /** Stops background work (lease renewal); slots still held are released. */
  close(): Promise<void>;
}

export function concurrencyExceeded(limit: number): ServiceError {
  return new ServiceError('ERR::LIMIT::CONCURRENCY_EXCEEDED', `All ${limit} concurrency slots of the organization are busy`, {
    retryAfterSeconds: 1,
    headers: { 'Concurrency-Limit': String(limit), 'Concurrency-Remaining': '0' },
  });
}

/** Slots counted in this process: the embedded default (one process) and the fallback of the shared one. */
export class MemoryConcurrencyLimiter implements ConcurrencyLimiter {
  private readonly inUse = new Map<string, number>();

  async acquire(organizationId: string, limit: number): Promise<ConcurrencySlot> {
    return this.acquireNow(organizationId, limit);
  }

  acquireNow(organizationId: string, limit: number): ConcurrencySlot {
    const used = this.inUse.get(organizationId) ?? 0;
    if (used >= limit) throw concurrencyExceeded(limit);
    this.inUse.set(organizationId, used + 1);
    let released = false;
    return {
      limit,
      remaining: limit - used - 1,
      leaseHolder: null,
      leaseFreed: () => undefined,
      release: async () => {
        if (released) return;
        released = true;
        const now = (this.inUse.get(organizationId) ?? 1) - 1;
        if (now <= 0) this.inUse.delete(organizationId);
        else this.inUse.set(organizationId, now);
      },
    };
  }

  async close(): Promise<void> {}
}
