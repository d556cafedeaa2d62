import type { NextFunction, Request, Response } from 'express';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/log.js';

/** Every response, success or error, carries X-Request-Id: a ULID usable with GET /v1/requests/{id}. */
export function requestId(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const id = newId();
    res.locals.requestId = id;
    res.locals.receivedAt = Date.now();
    res.locals.logger = logger.child({ request_id: id });
    res.setHeader('X-Request-Id', id);
    // Nothing but a successful scrape is billed; it overrides this.
    if (req.path.startsWith('/v1/')) res.setHeader('X-Credits-Charged', '0');
    next();
  };
}
