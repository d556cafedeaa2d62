import type { NextFunction, Request, Response } from 'express';
import { ServiceError } from '../../lib/errors/index.js';

/**
 * For routes that take no body (release, delete; the API reference): any body byte is 400 instead of being
 * ignored (cross-cutting rule 3), since a caller sending `{"force": true}` would otherwise lose it.
 */
export function rejectBody(route: string) {
  return async (req: Request, _res: Response, next: NextFunction) => {
    try {
      if (await hasBody(req)) {
        throw new ServiceError(
          'ERR::REQUEST::INVALID_PARAMETER',
          `${route} takes no request body; force is a query parameter (?force=true)`,
        );
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** Reads no more than the first chunk; whatever follows is drained and discarded. */
function hasBody(req: Request): Promise<boolean> {
  if (Number(req.headers['content-length'] ?? 0) > 0) return Promise.resolve(true);
  if (req.headers['transfer-encoding'] === undefined) return Promise.resolve(false);
  return new Promise((resolve, reject) => {
    req.once('data', () => resolve(true));
    req.once('end', () => resolve(false));
    req.once('error', reject);
    req.resume();
  });
}
