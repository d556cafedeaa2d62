/** The request log entry (`RequestLogEntry` in the API reference): one record per request, success or error. */
export const REQUEST_STATUSES = ['success', 'failed', 'timeout', 'blocked', 'rejected', 'cancelled'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

export interface RequestLogProxy {
  source: 'pool' | 'custom' | 'direct';
  endpoint_id: string | null;
  provider: string | null;
  requested_tier: string | null;
  requested_country: string | null;
  country: string | null;
  sticky: boolean;
  reason: string | null;
  endpoints: string[];
}

export interface RequestLogSpans {
  admission_ms: number;
  dispatch_ms: number;
  worker_ms: number;
  queue_ms: number;
  engine_ms: number;
  upstream_ms: number | null;
  extract_ms: number | null;
  total_ms: number;
}

export interface RequestLogEntry {
  id: string;
  /** RFC 3339 with millisecond precision. */
  created_at: string;
  project_id: string;
  engine: string | null;
  status: RequestStatus;
  http_status: number | null;
  /** `FAMILY_NAME` form, e.g. `UPSTREAM_CHALLENGE`; null on success. */
  error_code: string | null;
  error_detail: string | null;
  attempts: number;
  url: string | null;
  url_host: string | null;
  proxy: RequestLogProxy;
  spans: RequestLogSpans;
  blocked: { vendor: string; signal: string; rule: string } | null;
  bytes_in: number;
  bytes_out: number;
  proxy_bytes: number;
  credits_micro: number;
  features: Record<string, unknown>;
}
