import type { NextFunction, Request, Response } from 'express';
import { ServiceError } from '../../lib/errors/index.js';

/**
 * What Node's HTTP layer would answer bare (no problem body, no X-Request-Id) is answered here
 * instead: an HTTP/1.1 request without Host (RFC 9112 section 3.2 requires a 400) and an
 * expectation other than 100-continue (RFC 9110 allows a 417; the catalogue has no 417).
 */
export function httpFraming() {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      return next(new ServiceError('ERR::REQUEST::INVALID', 'An HTTP/1.1 request must carry a Host header'));
    }
    const expect = req.headers.expect;
    if (expect !== undefined && expect.trim().toLowerCase() !== '100-continue') {
      return next(new ServiceError('ERR::REQUEST::INVALID', 'Expect: only 100-continue is supported'));
    }
    next();
  };
}
