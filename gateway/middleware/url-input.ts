import type { NextFunction, Request, Response } from 'express';
import { ServiceError } from '../../lib/errors/index.js';
import { PROTOTYPE_KEYS } from '../../lib/validation/json-input.js';
import { printable, unstorableReason } from '../../lib/validation/storable.js';

function refused(detail: string): ServiceError {
  return new ServiceError('ERR::REQUEST::INVALID_PARAMETER', detail);
}

/** Throws the 400 `urlInput` answers for this request's path or query. */
export function checkUrlInput(req: Request): void {
  checkPath(req.originalUrl.split('?')[0]);
  checkQuery(req.query as Record<string, unknown>);
}

/** The path's segments as the router will decode them; a segment that is not percent-encoded UTF-8 is refused. */
function checkPath(rawPath: string): void {
  // Without a percent sign every segment decodes to itself, and then only NUL or a surrogate could be refused.
  if (!rawPath.includes('%') && unstorableReason(rawPath) === null) return;
  const segments = rawPath.split('/');
  segments.forEach((segment, index) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw refused(`path: segment ${index} ("${printable(segment)}") is not percent-encoded UTF-8`);
    }
    const reason = unstorableReason(decoded);
    if (reason) throw refused(`path: segment ${index} ("${printable(decoded)}") ${reason}`);
  });
}

function checkQuery(query: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(query)) {
    if (PROTOTYPE_KEYS.has(name)) throw refused(`${name}: is not accepted as a query parameter name`);
    const nameReason = unstorableReason(name);
    if (nameReason) throw refused(`${printable(name)}: the query parameter name ${nameReason}`);
    for (const item of Array.isArray(value) ? value : [value]) {
      const reason = typeof item === 'string' ? unstorableReason(item) : null;
      if (reason) throw refused(`${printable(name)}: ${reason}`);
    }
  }
}

/**
 * Every /v1 request's path and query string, before any route reads them: NUL (`%00`) cannot be
 * stored or logged, and prototype names are refused rather than dropped (cross-cutting rule 3).
 * Runs after authentication so the refusal is in the request log and its X-Request-Id resolves.
 */
export function urlInput() {
  return (req: Request, _res: Response, next: NextFunction) => {
    try {
      checkUrlInput(req);
      next();
    } catch (error) {
      next(error);
    }
  };
}
