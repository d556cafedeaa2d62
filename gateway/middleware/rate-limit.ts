import type { NextFunction, Request, Response } from 'express';
import type { GatewayContext } from '../context.js';
import { principalOf } from './auth.js';

/** One token per authenticated request (cache hits included); headers on every answer. */
export function rateLimit(context: GatewayContext) {
  return (_req: Request, res: Response, next: NextFunction) => {
    takeToken(context, res).then(
      (decision) => {
        res.setHeader('X-RateLimit-Limit', String(decision.limit));
        res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
        next();
      },
      (error: unknown) => next(error),
    );
  };
}

async function takeToken(context: GatewayContext, res: Response) {
  const principal = principalOf(res);
  return context.rateLimiter.take(principal.key.id, principal.organization.rate_limit_per_second);
}
