import type { NextFunction, Request, Response } from 'express';
import type { GatewayContext } from '../context.js';
import type { RateDecision } from '../limits/rate-limiter.js';
import { releaseAdmittedHold } from '../limits/limits.js';
import { admissionHoldFor } from '../scrape/admission-hold.js';
import { principalOf } from './auth.js';

/**
 * One token per authenticated request (cache hits included); headers on every answer. A scrape on
 * the shared limiter takes its concurrency slot in the same statement; the route uses it (or answers
 * 429 where it would have asked for one), and a slot the route never reached is freed with the answer.
 */
export function rateLimit(context: GatewayContext, takesSlot: (req: Request) => boolean = isScrapeUnderV1) {
  return (req: Request, res: Response, next: NextFunction) => {
    takeToken(context, req, res, takesSlot).then(
      (decision) => {
        res.setHeader('X-RateLimit-Limit', String(decision.limit));
        res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
        next();
      },
      (error: unknown) => next(error),
    );
  };
}

async function takeToken(context: GatewayContext, req: Request, res: Response, takesSlot: (req: Request) => boolean): Promise<RateDecision> {
  const { key, organization } = principalOf(res);
  const { rateLimiter } = context;
  if (!rateLimiter.admit || !takesSlot(req)) return rateLimiter.take(key.id, organization.rate_limit_per_second);
  const hold = await admissionHoldFor(context, req, res);
  const admission = await rateLimiter.admit(key.id, organization.rate_limit_per_second, organization.id, organization.concurrency_limit, hold);
  const { slot } = admission;
  const reservation = admission.reservation ?? undefined;
  if (slot !== null) {
    res.locals.admittedSlot = slot;
    res.locals.admittedHold = reservation;
    // Only a slot (and hold) the route never took: the route keeps its own until the scrape ends, client gone or not.
    if (slot !== 'full') {
      res.once('close', () => {
        if (res.locals.admittedSlot !== slot) return;
        if (reservation) releaseAdmittedHold(context.db, reservation, slot).catch((error: unknown) => res.locals.logger.warn({ err: error }, 'releasing a hold'));
        else void slot.release();
      });
    }
  }
  return admission.rate;
}

/** GET and POST /v1/scrape hold a concurrency slot (routes/scrape.ts); the path as seen under the `/v1` mount. */
function isScrapeUnderV1(req: Request): boolean {
  return req.path === '/scrape' && (req.method === 'POST' || req.method === 'GET');
}
