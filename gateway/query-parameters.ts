import type { NextFunction, Request, Response } from 'express';
import { ServiceError } from '../lib/errors/index.js';
import { isQueryKeyParameter } from '../lib/apikeys.js';

/**
 * Refuses a query parameter the route does not take (400 naming it). Query-string API keys are
 * not unknown: every route but GET /v1/browser ignores them (docs/api-reference.md "Authentication").
 */
export function rejectUnknownParameters(query: Record<string, unknown>, known: readonly string[]): void {
  for (const name of Object.keys(query)) {
    if (!known.includes(name) && !isQueryKeyParameter(name)) {
      throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `Query parameter "${name}" is not a parameter of this route`);
    }
  }
}

/** Refuses any query parameter of a route that takes none (its parameters are in the JSON body, or it has none). */
export function rejectQueryParameters(req: Request): void {
  // The query is parsed only when there is one: the hot path (POST /v1/scrape) has none.
  if (req.url.includes('?')) rejectUnknownParameters(req.query as Record<string, unknown>, []);
}

/** `rejectQueryParameters` as a middleware, ahead of the route's body. */
export function noQueryParameters(req: Request, _res: Response, next: NextFunction): void {
  try {
    rejectQueryParameters(req);
    next();
  } catch (error) {
    next(error);
  }
}
