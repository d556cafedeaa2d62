import { newId } from '../../lib/ids.js';
import type { Queryable } from '../../lib/store/db.js';
import { insertRequestLog } from '../../lib/store/request-log.js';
import type { RequestLogEntry, RequestStatus } from '../../lib/store/request-log-entry.js';

export const HOUR_MS = 3_600_000;

/** A complete entry as the lead's scrape path would hand it over. */
export function makeEntry(projectId: string, createdAt: Date, status: RequestStatus = 'success', id = newId()): RequestLogEntry {
  const failed = status !== 'success';
  return {
    id,
    created_at: createdAt.toISOString(),
    project_id: projectId,
    engine: 'fetch',
    status,
    http_status: failed ? null : 200,
    error_code: failed ? 'UPSTREAM_TIMEOUT' : null,
    error_detail: failed ? 'The target did not answer in time' : null,
    attempts: 1,
    url: `https://example.test/${id}`,
    url_host: 'example.test',
    proxy: {
      source: 'direct',
      endpoint_id: null,
      provider: null,
      requested_tier: null,
      requested_country: null,
      country: null,
      sticky: false,
      reason: null,
      endpoints: [],
    },
    spans: { admission_ms: 1, dispatch_ms: 2, worker_ms: 30, queue_ms: 0, engine_ms: 25, upstream_ms: 20, extract_ms: null, total_ms: 35 },
    blocked: status === 'blocked' ? { vendor: 'cloudflare', signal: 'challenge', rule: 'cf-chl' } : null,
    bytes_in: 1234,
    bytes_out: 567,
    proxy_bytes: 0,
    credits_micro: failed ? 0 : 1_000_000,
    features: { impersonate: true },
  };
}

export async function seed(db: Queryable, organizationId: string, entries: RequestLogEntry[]): Promise<RequestLogEntry[]> {
  for (const entry of entries) await insertRequestLog(db, entry, organizationId);
  return entries;
}

/** The list order (docs/request-log.md): newest first by (created_at, id); ids compare as bytes. */
export function newestFirst(entries: RequestLogEntry[]): RequestLogEntry[] {
  return [...entries].sort((a, b) => {
    if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
    return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
  });
}

export function ago(ms: number, from = Date.now()): Date {
  return new Date(from - ms);
}
