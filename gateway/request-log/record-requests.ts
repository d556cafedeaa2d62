import type { NextFunction, Request, Response } from 'express';
import { codeAnchor } from '../../lib/errors/index.js';
import type { RequestLogEntry } from '../../lib/store/request-log-entry.js';
import type { GatewayContext } from '../context.js';
import { principalOf } from '../middleware/auth.js';
import { plainEntry } from './plain-entry.js';

type End = (...args: unknown[]) => Response;

/**
 * The one request-log writer. Every authenticated /v1 request gets an entry, so any X-Request-Id
 * resolves with GET /v1/requests/{id} (cross-cutting rule 5, docs/request-log.md): the route's own
 * (`res.locals.requestLogEntry`, scrapes) or a generic one. It is handed to the batched writer as the
 * answer is ended and before its last bytes leave, so a caller holding the answer finds its entry
 * (pending or stored); `bytes_out` is what was sent. Reads of the request log itself write nothing:
 * paging through the log must not change it. Nor do the dashboard's own calls (its internal keys):
 * a page left open polls a batch job every second, and those reads are not the project's traffic.
 */
export function recordRequests(context: GatewayContext) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' && /^\/requests(\/|$)/.test(req.path)) return next();
    const principal = principalOf(res);
    if (principal.key.internal === true) return next();
    const end = res.end.bind(res) as End;
    let ended = false;
    const endAfterLogging: End = (...args) => {
      if (ended) return end(...args);
      ended = true;
      // The route's entry is built for this answer alone: completed in place rather than copied.
      const entry = res.locals.requestLogEntry ?? genericEntry(res, principal.project.id);
      entry.bytes_out = bytesOf(args[0], res);
      // features' contents are the service's own (SPEC.md): the key that called and Trawler's own status,
      // which the dashboard's log shows beside the target's (http_status).
      entry.features = { ...entry.features, key_id: principal.key.id, answer_status: res.statusCode };
      context.requestLog.add(entry, principal.organization.id);
      return end(...args);
    };
    res.end = endAfterLogging as Response['end'];
    next();
  };
}

function bytesOf(chunk: unknown, res: Response): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk);
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return Number(res.getHeader('content-length') ?? 0);
}

function genericEntry(res: Response, projectId: string): RequestLogEntry {
  const { receivedAt, problem } = res.locals;
  return plainEntry({
    id: res.locals.requestId,
    receivedAt,
    projectId,
    httpStatus: res.statusCode,
    errorCode: problem ? codeAnchor(problem.code) : null,
    errorDetail: problem?.detail ?? null,
    bytesIn: res.locals.bytesIn ?? 0,
    route: res.req.baseUrl + (res.req.route?.path ?? res.req.path),
    method: res.req.method,
  });
}
