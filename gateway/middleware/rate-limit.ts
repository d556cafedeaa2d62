import type { NextFunction, Request, Response } from 'express';
import type { GatewayContext } from '../context.js';
import { principalOf } from './auth.js';

/** One token per authenticated request (cache hits included); headers on every answer. */
export function rateLimit(context: GatewayContext) {
  return (_req: Request, res: Response, next: NextFunction) => {
    try {
      const principal = principalOf(res);
      const decision = context.rateLimiter.take(principal.key.id, principal.organization.rate_limit_per_second);
      res.setHeader('X-RateLimit-Limit', String(decision.limit));
      res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
      next();
    } catch (error) {
      next(error);
    }
  };
}
