import { ServiceError } from '../../lib/errors/index.js';
import type { Hold, HoldRequest } from '../../lib/store/credits.js';
import type { ConcurrencySlot } from './concurrency.js';

export interface RateDecision {
  limit: number;
  remaining: number;
}

/**
 * Token bucket per API key (docs/api-reference.md "Limits"): refills `rate` tokens per second up to a burst of
 * `BURST_SECONDS * rate`; one token per request, cache hits included. Refuses with RATE_LIMITED.
 */
export interface RateLimiter {
  take(keyId: string, rate: number): Promise<RateDecision>;
  /**
   * The shared limiter only: the token and, when granted, one of the organization's concurrency
   * slots in one round trip (scrapes). `slot` is 'full' when none was free, null when the caller
   * must acquire one itself. Refuses like `take`, taking no slot then. With `hold`, the scrape's
   * credit hold too, only with a slot and when the allowance covers it (`reservation`, else null).
   */
  admit?(keyId: string, rate: number, organizationId: string, concurrencyLimit: number, hold?: HoldRequest | null): Promise<TokenAdmission>;
}

export interface TokenAdmission {
  rate: RateDecision;
  slot: ConcurrencySlot | 'full' | null;
  /** The hold taken with the slot (the name the limiter tests read); settling it with the slot's lease holder also frees the slot. */
  reservation?: Hold | null;
}

export const BURST_SECONDS = 2;

export function bucketCapacity(rate: number, burstSeconds = BURST_SECONDS): number {
  return Math.max(1, rate * burstSeconds);
}

/** The answer for a bucket left with `tokens` after a take that was or was not granted. */
export function rateDecision(rate: number, tokens: number, granted: boolean): RateDecision {
  if (!granted) {
    const waitSeconds = Math.max(1, Math.ceil((1 - tokens) / rate));
    throw new ServiceError('ERR::LIMIT::RATE_LIMITED', `Request rate above ${rate} per second for this key`, {
      retryAfterSeconds: waitSeconds,
      headers: {
        'X-RateLimit-Limit': String(rate),
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(waitSeconds),
      },
    });
  }
  // The bucket holds up to two seconds' worth (the burst), but Limit is per second (SPEC.md): Remaining
  // says what may be sent within the next second, so it never reads above Limit (docs/platform.md "Limits").
  return { limit: rate, remaining: Math.max(0, Math.min(rate, Math.floor(tokens))) };
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** The buckets in this process: the embedded default (one process) and the fallback of the shared one. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly burstSeconds = BURST_SECONDS,
    private readonly clock: () => number = Date.now,
  ) {}

  async take(keyId: string, rate: number): Promise<RateDecision> {
    return this.takeAt(keyId, rate, this.clock());
  }

  takeAt(keyId: string, rate: number, now: number): RateDecision {
    const capacity = bucketCapacity(rate, this.burstSeconds);
    const bucket = this.buckets.get(keyId) ?? { tokens: capacity, updatedAt: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + (Math.max(0, now - bucket.updatedAt) / 1000) * rate);
    bucket.updatedAt = Math.max(bucket.updatedAt, now);
    this.buckets.set(keyId, bucket);
    const granted = bucket.tokens >= 1;
    if (granted) bucket.tokens -= 1;
    return rateDecision(rate, bucket.tokens, granted);
  }
}
