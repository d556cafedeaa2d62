import pLimit, { type LimitFunction } from 'p-limit';
import { ServiceError } from '../../lib/errors/index.js';

/** Requests allowed to wait for a password hash, per hash that may run at once. */
export const WAITING_PER_HASH = 4;

/**
 * Bounds password hashing (32 MiB of scrypt each, docs/dashboard.md "Brute force"): at most
 * `concurrency` at once and `concurrency × WAITING_PER_HASH` waiting; one more is refused with 429
 * ERR::LIMIT::CONCURRENCY_EXCEEDED before it costs anything.
 */
export class HashGate {
  private readonly limit: LimitFunction;

  constructor(private readonly concurrency: number) {
    this.limit = pLimit(concurrency);
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.limit.activeCount + this.limit.pendingCount >= this.concurrency * (1 + WAITING_PER_HASH)) {
      throw new ServiceError('ERR::LIMIT::CONCURRENCY_EXCEEDED', 'Too many sign-ins are being checked at once; try again in a second', {
        retryAfterSeconds: 1,
      });
    }
    return this.limit(work);
  }
}
