import type { RequestLogEntry, RequestStatus } from '../../lib/store/request-log-entry.js';

export interface PlainEntryFields {
  id: string;
  receivedAt: number;
  projectId: string;
  httpStatus: number;
  errorCode: string | null;
  errorDetail: string | null;
  bytesIn: number;
  route: string;
  method: string;
}

/** The entry of a request that ran no scrape: what any route, or a refused request, records. */
export function plainEntry(fields: PlainEntryFields): RequestLogEntry {
  const totalMs = Date.now() - fields.receivedAt;
  return {
    id: fields.id,
    created_at: new Date(fields.receivedAt).toISOString(),
    project_id: fields.projectId,
    engine: null,
    status: statusOf(fields.httpStatus),
    http_status: null,
    error_code: fields.errorCode,
    error_detail: fields.errorDetail,
    attempts: 0,
    url: null,
    url_host: null,
    proxy: { source: 'direct', endpoint_id: null, provider: null, requested_tier: null, requested_country: null, country: null, sticky: false, reason: null, endpoints: [] },
    spans: { admission_ms: totalMs, dispatch_ms: 0, worker_ms: 0, queue_ms: 0, engine_ms: 0, upstream_ms: null, extract_ms: null, total_ms: totalMs },
    blocked: null,
    bytes_in: fields.bytesIn,
    bytes_out: 0,
    proxy_bytes: 0,
    credits_micro: 0,
    features: { route: fields.route, method: fields.method },
  };
}

function statusOf(httpStatus: number): RequestStatus {
  if (httpStatus < 400) return 'success';
  return httpStatus < 500 ? 'rejected' : 'failed';
}
