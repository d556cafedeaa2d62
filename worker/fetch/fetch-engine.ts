import { routeOf, type JobRoute } from '../egress/redact.js';
import { ServiceError, codeAnchor, toServiceError, type Attempt, type TimelineStep } from '../../lib/errors/index.js';
import { checkProxyUrl, checkTargetUrl, type EgressPolicy } from '../../lib/egress/policy.js';
import type { ProxyUse, ScrapeJob } from '../../lib/protocol/index.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import type { Engine, EngineContext, RawPage } from '../engine.js';
import type { EgressGuard } from '../egress/guard.js';
import { detectChallenge } from '../challenge/detect.js';
import type { JobSignal } from '../cancellation.js';
import { cancelAfter, deadline } from '../deadline.js';
import { DEFAULT_MAX_BODY_BYTES, decodeText, isTextual, mediaTypeOf } from './body.js';
import { HINTS, TRANSIENT_CODES } from './errors.js';
import type { HttpClient } from './hop.js';
import { SessionCookieJar } from './cookie-jar.js';
import { followHops, type FetchedPage } from './hops.js';
import { ImpersonatingClient, ImpitClient } from './impit-client.js';
import { probeProxy } from './proxy-probe.js';
import { UndiciClient } from './undici-client.js';

export interface FetchEngineOptions {
  guard: EgressGuard;
  policy: EgressPolicy;
  capacity?: number;
  maxBodyBytes?: number;
  maxRedirects?: number;
}

const RETRYABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const MAX_ATTEMPTS = 3;
/** Below this much budget another attempt is not worth starting. */
const MIN_RETRY_BUDGET_MS = 250;
/** Headers describing the wire body, which no longer apply once the body is decoded. */
const WIRE_BODY_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding']);

/** What one fetch gathers across its attempts, for the result and the diagnostics of a failure. */
interface RunState {
  started: number;
  budgetMs: number;
  timeline: TimelineStep[];
  attempts: Attempt[];
  bytes: { in: number; out: number };
  route: JobRoute;
  proxy: ProxyUse;
}

/** The plain-HTTP engine: impit (Chrome fingerprint) or undici, every byte through the egress guard. */
export class FetchEngine implements Engine {
  readonly name = 'fetch' as const;
  readonly capacity: number;
  private readonly maxBodyBytes: number;
  private readonly maxRedirects: number;
  private readonly impit = new ImpitClient();
  private readonly undici = new UndiciClient();
  private readonly impersonating = new ImpersonatingClient(this.impit, this.undici);

  constructor(private readonly options: FetchEngineOptions) {
    this.capacity = options.capacity ?? 16;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.maxRedirects = options.maxRedirects ?? 10;
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {
    this.impit.close();
    await this.undici.close();
  }

  async fetch(job: ScrapeJob, context: EngineContext): Promise<RawPage> {
    const params = job.params;
    const state: RunState = {
      started: performance.now(),
      budgetMs: job.budget_ms,
      timeline: [],
      attempts: [],
      bytes: { in: 0, out: 0 },
      route: routeOf(job),
      proxy: { source: 'direct', endpoint: null, country: null },
    };
    try {
      const target = checkTargetUrl(params.url, this.options.policy);
      if (!state.route.trustedUpstream && params.proxy !== null) checkProxyUrl(params.proxy, this.options.policy);
      state.proxy = state.route.use;
      if (params.proxy_verify && params.proxy !== null && job.exit === null) await this.verifyProxyWithinBudget(job, params.proxy, target, context.signal, state);
      const cookies = job.session ? await SessionCookieJar.fromSession(job.session) : undefined;
      // No deadline of its own for the whole fetch: each attempt's deadline ends within the budget.
      const fetched = await this.fetchWithRetries(job, params, target, context.signal, state, cookies);
      const page = this.toRawPage(fetched, state);
      return cookies && job.session ? { ...page, session: await cookies.stateAfter(job.session) } : page;
    } catch (caught) {
      throw this.withDiagnostics(toServiceError(caught), state);
    }
  }

  private async verifyProxyWithinBudget(job: ScrapeJob, proxy: string, target: URL, parent: JobSignal, state: RunState): Promise<void> {
    const budget = deadline(Math.max(1, job.budget_ms), parent);
    try {
      await this.verifyProxy(job, proxy, target, budget.signal, state);
    } finally {
      budget.dispose();
    }
  }

  private async verifyProxy(job: ScrapeJob, proxy: string, target: URL, signal: AbortSignal, state: RunState): Promise<void> {
    const lease = this.options.guard.lease({ requestId: job.request_id, upstreamProxy: proxy });
    const started = performance.now();
    try {
      await probeProxy(lease, target, signal);
      state.timeline.push({ stage: 'proxy_verify', ms: Math.round(performance.now() - started), ok: true });
    } catch (caught) {
      const error = signal.aborted ? new ServiceError('ERR::UPSTREAM::TIMEOUT', 'The proxy check did not finish within the time budget') : toServiceError(caught);
      state.timeline.push({ stage: 'proxy_verify', ms: Math.round(performance.now() - started), ok: false, detail: error.code });
      throw error;
    } finally {
      lease.release();
    }
  }

  private async fetchWithRetries(
    job: ScrapeJob,
    params: ScrapeParams,
    target: URL,
    /** The caller's signal (worker stop, job deadline); the budget is kept by each attempt's deadline. */
    parent: JobSignal,
    state: RunState,
    cookies: SessionCookieJar | undefined,
  ): Promise<FetchedPage> {
    const maxAttempts = RETRYABLE_METHODS.has(params.method) ? MAX_ATTEMPTS : 1;
    const client: HttpClient = params.impersonate ? this.impersonating : this.undici;
    for (let n = 1; ; n++) {
      const remaining = state.budgetMs - (performance.now() - state.started);
      // An attempt that may be followed by another gets part of the budget, so a hang can still be retried.
      const timeoutMs = Math.max(1, Math.round(n < maxAttempts ? Math.max(remaining * 0.6, Math.min(remaining, 2_000)) : remaining));
      const attempt = cancelAfter(timeoutMs, parent);
      const signal = attempt.signal;
      const attemptStarted = performance.now();
      try {
        const page = await followHops({
          client,
          guard: this.options.guard,
          policy: this.options.policy,
          requestId: job.request_id,
          upstreamProxy: state.route.upstreamProxy,
          trustedUpstream: state.route.trustedUpstream,
          url: target,
          method: params.method,
          headers: params.custom_headers,
          signal,
          timeoutMs,
          maxBodyBytes: this.maxBodyBytes,
          maxRedirects: this.maxRedirects,
          timeline: state.timeline,
          cookies,
          onBytes: (bytes) => {
            state.bytes.in += bytes.in;
            state.bytes.out += bytes.out;
          },
        });
        this.recordAttempt(state, n, attemptStarted, 'ok', null);
        return page;
      } catch (caught) {
        const error = toServiceError(caught);
        this.recordAttempt(state, n, attemptStarted, 'error', error);
        const left = state.budgetMs - (performance.now() - state.started);
        const retry = n < maxAttempts && TRANSIENT_CODES.has(error.code) && !parent.aborted && left >= MIN_RETRY_BUDGET_MS;
        if (!retry) throw error;
      } finally {
        attempt.dispose();
      }
    }
  }

  private recordAttempt(state: RunState, n: number, started: number, outcome: string, error: ServiceError | null): void {
    state.attempts.push({
      n,
      engine: 'fetch',
      proxy: state.proxy.endpoint,
      outcome,
      ms: Math.round(performance.now() - started),
      error_code: error ? codeAnchor(error.code) : null,
    });
  }

  private toRawPage(fetched: FetchedPage, state: RunState): RawPage {
    // Copied without them rather than deleted from a copy, which leaves V8 a slow dictionary object.
    const headers: Record<string, string> = {};
    for (const name of Object.keys(fetched.headers)) if (!WIRE_BODY_HEADERS.has(name)) headers[name] = fetched.headers[name];
    const mediaType = mediaTypeOf(fetched.headers['content-type'], fetched.body);
    const text = isTextual(mediaType) ? decodeText(fetched.body, mediaType, fetched.headers['content-type']) : null;
    const blocked = detectChallenge({ status: fetched.status, headers, body: text ?? '', url: fetched.finalUrl });
    if (blocked) state.attempts[state.attempts.length - 1].outcome = 'challenge';
    const upstreamMs = Math.round(performance.now() - state.started);
    return {
      finalUrl: fetched.finalUrl,
      status: fetched.status,
      headers,
      mediaType,
      text,
      body: fetched.body,
      warnings: [],
      attempts: state.attempts,
      timeline: state.timeline,
      bytesIn: state.bytes.in,
      proxyBytes: state.proxy.source === 'direct' ? 0 : state.bytes.in + state.bytes.out,
      proxy: state.proxy,
      upstreamMs,
      blocked,
    };
  }

  private withDiagnostics(error: ServiceError, state: RunState): ServiceError {
    const timeline = state.timeline;
    return error.with({
      diagnostics: {
        ...error.diagnostics,
        failed_at: timeline.length > 0 ? timeline[timeline.length - 1].stage : 'validate',
        timeline,
        attempts: state.attempts,
        budget_ms: state.budgetMs,
        elapsed_ms: Math.round(performance.now() - state.started),
        engine: 'fetch',
        proxy: state.proxy,
        hint: HINTS[error.code] ?? 'Retry later; if the failure persists, check the target in a browser.',
      },
    });
  }
}
