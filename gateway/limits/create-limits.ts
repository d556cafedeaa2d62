import { ServiceError } from '../../lib/errors/index.js';
import type { Logger } from '../../lib/log.js';
import type { Db } from '../../lib/store/db.js';
import { settleStored } from '../../lib/store/stored-settlements.js';
import { MemoryConcurrencyLimiter, type ConcurrencyLimiter, type ConcurrencySlot } from './concurrency.js';
import { DEFAULT_LEASE, PostgresConcurrencyLimiter, PostgresRateLimiter } from './postgres.js';
import { MemoryRateLimiter, rateDecision, type TokenAdmission, type RateDecision, type RateLimiter } from './rate-limiter.js';

export interface GatewayLimits {
  rateLimiter: RateLimiter;
  concurrency: ConcurrencyLimiter;
}

export interface SharedLimitOptions {
  /** A limiter answer slower than this (or failing) is replaced by this replica's own count. */
  storeTimeoutMs: number;
  leaseMs: number;
  renewEveryMs: number;
  /** Tests only: the clock of the token buckets (unset: the database clock). */
  clock: (() => number) | null;
}

export const DEFAULT_SHARED_LIMITS: SharedLimitOptions = { storeTimeoutMs: 2000, ...DEFAULT_LEASE, clock: null };

/**
 * The embedded default (PGlite, one process) counts in memory; on PostgreSQL the buckets and slots
 * live in the store, shared by every replica, with this replica's own count as the fallback while
 * the store does not answer (docs/platform.md, Limits).
 */
export function createLimits(db: Db, logger: Logger, options: Partial<SharedLimitOptions> = {}): GatewayLimits {
  if (db.kind === 'pglite') return { rateLimiter: new MemoryRateLimiter(), concurrency: new MemoryConcurrencyLimiter() };
  const settings = { ...DEFAULT_SHARED_LIMITS, ...options };
  const onError = (error: unknown, action: string) => logger.warn({ err: error }, `${action} failed`);
  const fallback = new Fallback(settings.storeTimeoutMs, logger);
  const sharedRate = new PostgresRateLimiter(db, settings.clock);
  const sharedSlots = new PostgresConcurrencyLimiter(db, { leaseMs: settings.leaseMs, renewEveryMs: settings.renewEveryMs, onError });
  const localRate = new MemoryRateLimiter();
  const localSlots = new MemoryConcurrencyLimiter();
  return {
    rateLimiter: {
      take: (keyId, rate): Promise<RateDecision> =>
        fallback.run(() => sharedRate.take(keyId, rate), () => localRate.take(keyId, rate), () => undefined),
      admit: (keyId, rate, organizationId, limit, hold = null): Promise<TokenAdmission> =>
        fallback.run(
          async () => {
            const { bucket, slot, held } = await sharedSlots.acquireWithToken(sharedRate.tokenRequest(keyId, rate), organizationId, limit, hold);
            const taken = held && hold ? { id: hold.id, amountMicro: hold.amountMicro } : null;
            return { rate: rateDecision(rate, bucket.tokens, bucket.granted), slot, reservation: taken };
          },
          async () => ({ rate: await localRate.take(keyId, rate), slot: null, reservation: null }),
          (late) => {
            if (late.slot === null || late.slot === 'full') return;
            if (late.reservation) releaseLateHold(db, late.reservation.id, late.slot).catch((error: unknown) => onError(error, 'releasing a late hold'));
            else void late.slot.release();
          },
        ),
    },
    concurrency: {
      acquire: (organizationId, limit): Promise<ConcurrencySlot> =>
        fallback.run(
          () => sharedSlots.acquire(organizationId, limit),
          () => localSlots.acquire(organizationId, limit),
          (late) => void late.release(),
        ),
      close: () => sharedSlots.close(),
    },
  };
}

/**
 * Settles at 0 a hold the admission statement took after its caller stopped waiting (a stored row:
 * the shared limiter runs on PostgreSQL only), freeing its slot in the same statement.
 */
async function releaseLateHold(db: Db, holdId: string, slot: ConcurrencySlot): Promise<void> {
  try {
    await settleStored(db, { holdId, chargedMicro: 0, engine: null, leaseHolder: slot.leaseHolder });
    slot.leaseFreed();
  } finally {
    // A failed settlement leaves the hold to the expiry sweep; the slot is still given back.
    await slot.release();
  }
}

/** Runs the shared limiter within the time bound; on a store failure or timeout, the local one decides. */
class Fallback {
  private lastWarning = 0;

  constructor(
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  /** One promise and one timer per call: no race between promises (this runs on every scrape's admission). */
  run<T>(shared: () => Promise<T>, local: () => Promise<T>, undoLate: (late: T) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const pending = shared();
      // Through a promise, so a local limiter that throws rejects this call even from the timer's callback.
      const decideLocally = (): void => void Promise.resolve().then(local).then(resolve, reject);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        pending.then(undoLate, () => undefined);
        this.warn(new Error(`no answer within ${this.timeoutMs} ms`));
        decideLocally();
      }, this.timeoutMs);
      pending.then(
        (value) => {
          if (timedOut) return;
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          if (timedOut) return;
          clearTimeout(timer);
          if (error instanceof ServiceError) return reject(error);
          this.warn(error);
          decideLocally();
        },
      );
    });
  }

  private warn(error: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    this.logger.warn({ err: error }, 'shared limits unavailable; this replica counts alone until the store answers');
  }
}
