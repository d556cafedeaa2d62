import type { NextFunction, Request, Response } from 'express';
import type { GatewayContext } from '../context.js';
import { principalOf } from './auth.js';

/**
 * One token per authenticated request (cache hits included); headers on every answer. A scrape takes
 * its token in its admission instead (scrape/admission.ts), with its concurrency slot.
 */
export function rateLimit(context: GatewayContext) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const { key, organization } = principalOf(res);
    context.rateLimiter.take(key.id, organization.rate_limit_per_second).then(
      (decision) => {
        res.setHeader('X-RateLimit-Limit', String(decision.limit));
        res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
        next();
      },
      (error: unknown) => next(error),
    );
  };
}
