import type { NextFunction, Request, Response } from 'express';
import { codeAnchor, isErrorCode } from '../../lib/errors/index.js';
import { insertRequestLog } from '../../lib/store/request-log.js';
import type { RequestLogEntry, RequestStatus } from '../../lib/store/request-log-entry.js';
import type { GatewayContext } from '../context.js';
import { principalOf } from '../middleware/auth.js';

/**
 * Every authenticated /v1 request gets a request log entry, so any X-Request-Id resolves with
 * GET /v1/requests/{id} (cross-cutting rule 5, docs/api-reference.md). Scrapes write their own, richer entry (`res.locals.requestLogged`);
 * this one is written when the answer is finished, for everything else, except reads of the request log
 * itself: paging through the log must not change it.
 */
export function recordRequests(context: GatewayContext) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' && /^\/requests(\/|$)/.test(req.path)) return next();
    const principal = principalOf(res);
    res.on('finish', () => {
      if (res.locals.requestLogged === true) return;
      insertRequestLog(context.db, genericEntry(res, principal.project.id), principal.organization.id).catch((error: unknown) =>
        (res.locals.logger as GatewayContext['logger']).warn({ err: error }, 'request log write failed'),
      );
    });
    next();
  };
}

function genericEntry(res: Response, projectId: string): RequestLogEntry {
  const receivedAt = res.locals.receivedAt as number;
  const totalMs = Date.now() - receivedAt;
  const code = res.locals.problemCode as string | undefined;
  return {
    id: res.locals.requestId as string,
    created_at: new Date(receivedAt).toISOString(),
    project_id: projectId,
    engine: null,
    status: statusOf(res.statusCode),
    http_status: null,
    error_code: code && isErrorCode(code) ? codeAnchor(code) : null,
    error_detail: (res.locals.problemDetail as string | undefined) ?? null,
    attempts: 0,
    url: null,
    url_host: null,
    proxy: { source: 'direct', endpoint_id: null, provider: null, requested_tier: null, requested_country: null, country: null, sticky: false, reason: null, endpoints: [] },
    spans: { admission_ms: totalMs, dispatch_ms: 0, worker_ms: 0, queue_ms: 0, engine_ms: 0, upstream_ms: null, extract_ms: null, total_ms: totalMs },
    blocked: null,
    bytes_in: (res.locals.bytesIn as number | undefined) ?? 0,
    bytes_out: Number(res.getHeader('content-length') ?? 0),
    proxy_bytes: 0,
    credits_micro: 0,
    features: { route: res.req.baseUrl + (res.req.route?.path ?? res.req.path), method: res.req.method },
  };
}

function statusOf(httpStatus: number): RequestStatus {
  if (httpStatus < 400) return 'success';
  return httpStatus < 500 ? 'rejected' : 'failed';
}
