import { randomUUID } from 'node:crypto';
import type { HoldRequest } from '../../lib/store/credits.js';
import type { Queryable } from '../../lib/store/db.js';
import { claimSlot, releaseSlot, renewSlots, takeToken, takeTokenAndClaimSlot, type BucketState } from '../../lib/store/shared-limits.js';
import { concurrencyExceeded, type ConcurrencyLimiter, type ConcurrencySlot } from './concurrency.js';
import { BURST_SECONDS, bucketCapacity, rateDecision, type RateDecision, type RateLimiter } from './rate-limiter.js';

/** The key's token bucket in PostgreSQL, shared by every gateway replica (docs/platform.md, Limits). */
export class PostgresRateLimiter implements RateLimiter {
  /** `clock` is for tests; unset, the database clock refills every replica's buckets alike. */
  constructor(
    private readonly db: Queryable,
    private readonly clock: (() => number) | null = null,
    private readonly burstSeconds = BURST_SECONDS,
  ) {}

  async take(keyId: string, rate: number): Promise<RateDecision> {
    const token = this.tokenRequest(keyId, rate);
    const state = await takeToken(this.db, keyId, rate, token.capacity, token.nowMs);
    return rateDecision(rate, state.tokens, state.granted);
  }

  /** What a take of one token from the key's bucket asks the store (also for `acquireWithToken`). */
  tokenRequest(keyId: string, rate: number): TokenRequest {
    return { keyId, rate, capacity: bucketCapacity(rate, this.burstSeconds), nowMs: this.clock?.() ?? null };
  }
}

export interface TokenRequest {
  keyId: string;
  rate: number;
  capacity: number;
  nowMs: number | null;
}

export interface LeaseOptions {
  /** How long a slot stays taken without renewal: the bound on a dead gateway's slots. */
  leaseMs: number;
  /** How often this gateway renews the leases of its running requests. */
  renewEveryMs: number;
  onError(error: unknown, action: string): void;
}

export const DEFAULT_LEASE: Omit<LeaseOptions, 'onError'> = { leaseMs: 30_000, renewEveryMs: 10_000 };

/**
 * An organization's concurrency slots as leases in PostgreSQL, shared by every gateway replica. A
 * running request's lease is renewed by its gateway; when the gateway dies the lease expires and the
 * slot is free again after at most `leaseMs`.
 */
export class PostgresConcurrencyLimiter implements ConcurrencyLimiter {
  private readonly held = new Set<string>();
  private readonly renewal: NodeJS.Timeout;

  constructor(
    private readonly db: Queryable,
    private readonly options: LeaseOptions,
  ) {
    this.renewal = setInterval(() => {
      this.renewLeases().catch((error: unknown) => options.onError(error, 'renewing concurrency leases'));
    }, options.renewEveryMs);
    this.renewal.unref();
  }

  async acquire(organizationId: string, limit: number): Promise<ConcurrencySlot> {
    const holder = randomUUID();
    // Each lost race means another replica took a slot, so at most `limit` rounds find one or none.
    for (let round = 0; round <= limit; round += 1) {
      const claim = await claimSlot(this.db, organizationId, limit, holder, this.options.leaseMs);
      if (claim.slot !== null) return this.heldSlot(holder, limit, claim.busy);
      if (claim.candidates === 0) break;
    }
    throw concurrencyExceeded(limit);
  }

  /**
   * The key's token and, when granted, a slot, in one statement (a scrape's admission). The slot is
   * 'full' when the organization had none free, null when the token was refused or another replica
   * took the chosen slot first (then `acquire` decides).
   */
  async acquireWithToken(
    token: TokenRequest,
    organizationId: string,
    limit: number,
    hold: HoldRequest | null = null,
  ): Promise<{ bucket: BucketState; slot: ConcurrencySlot | 'full' | null; held: boolean }> {
    const holder = randomUUID();
    const claim = await takeTokenAndClaimSlot(this.db, token, { organizationId, limit, holder, leaseMs: this.options.leaseMs }, hold);
    const bucket = { tokens: claim.tokens, granted: claim.granted };
    if (!claim.granted) return { bucket, slot: null, held: false };
    if (claim.slot !== null) return { bucket, slot: this.heldSlot(holder, limit, claim.busy), held: claim.held };
    return { bucket, slot: claim.candidates === 0 ? 'full' : null, held: false };
  }

  async renewLeases(): Promise<number> {
    return renewSlots(this.db, [...this.held], this.options.leaseMs);
  }

  async close(): Promise<void> {
    clearInterval(this.renewal);
    const holders = [...this.held];
    this.held.clear();
    await Promise.all(holders.map((holder) => releaseSlot(this.db, holder).catch(() => undefined)));
  }

  private heldSlot(holder: string, limit: number, busy: number): ConcurrencySlot {
    this.held.add(holder);
    return {
      limit,
      remaining: Math.max(0, limit - busy - 1),
      release: this.releaser(holder),
      leaseHolder: holder,
      leaseFreed: () => void this.held.delete(holder),
    };
  }

  private releaser(holder: string): () => Promise<void> {
    return async () => {
      if (!this.held.delete(holder)) return;
      await releaseSlot(this.db, holder).catch((error: unknown) => this.options.onError(error, 'releasing a concurrency slot'));
    };
  }
}
