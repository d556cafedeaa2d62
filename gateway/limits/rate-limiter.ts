import { ServiceError } from '../../lib/errors/index.js';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface RateDecision {
  limit: number;
  remaining: number;
}

/**
 * Token bucket per API key (docs/api-reference.md "Limits"): refills `rate` tokens per second up to a burst of
 * `burstSeconds * rate`; one token per request, cache hits included. Per gateway replica.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly burstSeconds = 2) {}

  take(keyId: string, rate: number, now = Date.now()): RateDecision {
    const capacity = Math.max(1, rate * this.burstSeconds);
    const bucket = this.buckets.get(keyId) ?? { tokens: capacity, updatedAt: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.updatedAt) / 1000) * rate);
    bucket.updatedAt = now;
    this.buckets.set(keyId, bucket);
    if (bucket.tokens < 1) {
      const waitSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
      throw new ServiceError('ERR::LIMIT::RATE_LIMITED', `Request rate above ${rate} per second for this key`, {
        retryAfterSeconds: waitSeconds,
        headers: {
          'X-RateLimit-Limit': String(rate),
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset': String(waitSeconds),
        },
      });
    }
    bucket.tokens -= 1;
    return { limit: rate, remaining: Math.floor(bucket.tokens) };
  }
}
