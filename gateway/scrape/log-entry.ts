import { codeAnchor, type ServiceError } from '../../lib/errors/index.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import type { RequestLogEntry, RequestStatus } from '../../lib/store/request-log-entry.js';
import type { ScrapeRecord } from './scrape-loop.js';
import type { ScrapeSucceeded } from './scrape-service.js';

export interface ScrapeLogInput {
  requestId: string;
  receivedAt: number;
  projectId: string;
  params: ScrapeParams | null;
  /** The URL as sent, when the parameters could not be parsed. */
  rawUrl: string | null;
  record: ScrapeRecord | null;
  success: ScrapeSucceeded | null;
  error: ServiceError | null;
  bytesIn: number;
  bytesOut: number;
  /** The caller went away before the answer (status `cancelled`). */
  clientGone: boolean;
}

/** One request log entry (`RequestLogEntry` in the API reference) from what the scrape did. */
export function scrapeLogEntry(input: ScrapeLogInput): RequestLogEntry {
  const record = input.success ?? input.record;
  const results = record?.results ?? [];
  const last = results.at(-1);
  const url = input.params?.url || input.rawUrl;
  const sumOf = (pick: (r: (typeof results)[number]) => number | null) =>
    results.length === 0 ? null : results.reduce((sum, r) => sum + (pick(r) ?? 0), 0);
  const totalMs = Date.now() - input.receivedAt;
  const workerMs = sumOf((r) => r.spans.queue_ms + r.spans.engine_ms + (r.spans.extract_ms ?? 0)) ?? 0;
  return {
    id: input.requestId,
    created_at: new Date(input.receivedAt).toISOString(),
    project_id: input.projectId,
    engine: record?.engine ?? record?.plan?.rungs[0] ?? null,
    status: statusOf(input),
    http_status: input.success ? input.success.result.target_status : (input.error?.targetStatus ?? null),
    error_code: input.error ? codeAnchor(input.error.code) : null,
    error_detail: input.error?.detail ?? null,
    attempts: record?.attempts.length ?? 0,
    url: url ?? null,
    url_host: hostOf(url),
    proxy: proxyOf(input.params, record),
    spans: {
      admission_ms: record?.admissionMs ?? totalMs,
      dispatch_ms: record?.dispatchMs ?? 0,
      worker_ms: workerMs,
      queue_ms: sumOf((r) => r.spans.queue_ms) ?? 0,
      engine_ms: sumOf((r) => r.spans.engine_ms) ?? 0,
      upstream_ms: sumOf((r) => r.spans.upstream_ms),
      extract_ms: sumOf((r) => r.spans.extract_ms),
      total_ms: totalMs,
    },
    blocked: results.map((r) => r.blocked).find((b) => b !== null) ?? null,
    bytes_in: input.bytesIn + results.reduce((sum, r) => sum + r.bytes_in, 0),
    bytes_out: input.bytesOut,
    proxy_bytes: results.reduce((sum, r) => sum + r.proxy_bytes, 0),
    credits_micro: input.success?.chargedMicro ?? 0,
    features: input.params ? featuresOf(input.params, record) : {},
  };
}

/** The request log's `proxy` object from what the scrape did (docs/proxy-pools.md, "Request log"). */
function proxyOf(params: ScrapeParams | null, record: ScrapeRecord | null): RequestLogEntry['proxy'] {
  const results = record?.results ?? [];
  const last = results.at(-1);
  const exitRequest = record?.exitRequest ?? null;
  const tried = record?.exitsTried ?? [];
  const sticky = exitRequest ? exitRequest.stickyKey !== null : params?.sticky_key != null;
  return {
    source: last?.proxy.source ?? (params?.proxy ? 'custom' : 'direct'),
    endpoint_id: last?.proxy.endpoint ?? null,
    provider: last?.proxy.source === 'pool' ? (tried.at(-1)?.provider ?? null) : null,
    requested_tier: exitRequest?.intent.required || params?.premium_proxy ? (exitRequest?.intent.tier ?? 'residential') : null,
    requested_country: exitRequest?.intent.country ?? params?.proxy_country ?? null,
    country: last?.proxy.country ?? null,
    sticky,
    reason: reasonOf(params, exitRequest !== null, last?.proxy.source, tried.at(-1)?.reason ?? null),
    endpoints: [...new Set(results.map((r) => r.proxy.endpoint).filter((e): e is string => e !== null))],
  };
}

function reasonOf(params: ScrapeParams | null, pooled: boolean, source: string | undefined, exitReason: string | null): string | null {
  if (params?.proxy) return 'caller_proxy';
  if (!pooled) return null;
  return source === 'pool' ? exitReason : 'no_pool_exit';
}

function statusOf(input: ScrapeLogInput): RequestStatus {
  if (input.success) return 'success';
  if (input.clientGone) return 'cancelled';
  const code = input.error?.code ?? 'ERR::INTERNAL::ERROR';
  if (code === 'ERR::UPSTREAM::TIMEOUT') return 'timeout';
  if (code === 'ERR::UPSTREAM::CHALLENGE') return 'blocked';
  const status = input.error?.status ?? 500;
  return status < 500 && status !== 410 ? 'rejected' : 'failed';
}

/** Which optional capabilities the request used (docs/request-log.md). */
function featuresOf(params: ScrapeParams, record: ScrapeRecord | null): Record<string, unknown> {
  return {
    method: params.method,
    response_format: params.response_format,
    mode: params.mode,
    js_render: params.js_render,
    impersonate: params.impersonate,
    screenshot: params.screenshot,
    actions: params.actions?.length ?? 0,
    extract: params.extract !== null,
    ai_extract: modelFeature(record),
    autoparse: params.autoparse,
    links: params.links,
    session: params.session_id !== null,
    cache: record?.cacheState ?? 'bypass',
    escalations: record?.warnings.filter((w) => w === 'ESCALATED').length ?? 0,
  };
}

/** Null without ai_extract (or before its model step began); else the model, the calls and the tokens it reported. */
function modelFeature(record: ScrapeRecord | null): Record<string, unknown> | null {
  const use = record?.model;
  if (!use) return null;
  return {
    model: use.model,
    mode: use.mode,
    calls: use.calls,
    prompt_tokens: use.prompt_tokens,
    completion_tokens: use.completion_tokens,
    total_tokens: use.prompt_tokens + use.completion_tokens,
    ms: use.ms,
    input_cut_chars: use.input_cut_chars,
  };
}

function hostOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}
