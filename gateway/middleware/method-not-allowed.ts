import type { NextFunction, Request, Response } from 'express';
import { ServiceError } from '../../lib/errors/index.js';

/**
 * A known path with a method it does not serve. The catalogue has no 405 row, so this is a 400
 * ERR::REQUEST::INVALID naming the allowed methods, with the standard Allow header.
 */
export function methodNotAllowed(allowed: string[]) {
  // Named so the API reference's route-coverage test can tell it from a route's own handlers.
  return function refuseMethod(req: Request, res: Response, next: NextFunction) {
    res.setHeader('Allow', allowed.join(', '));
    next(new ServiceError('ERR::REQUEST::INVALID', `Method ${req.method} is not allowed here; use ${allowed.join(' or ')}`));
  };
}
