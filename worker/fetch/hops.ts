import { setMaxListeners } from 'node:events';
import { ServiceError, type TimelineStep } from '../../lib/errors/index.js';
import { checkTargetUrl, type EgressPolicy } from '../../lib/egress/policy.js';
import type { HttpMethod } from '../../lib/scrape/vocabulary.js';
import type { JobSignal } from '../cancellation.js';
import type { EgressGuard } from '../egress/guard.js';
import { classifyTransportError } from './errors.js';
import type { HttpClient, HopResponse } from './hop.js';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that carry the caller's credentials; dropped when a redirect leaves the origin, as browsers do. */
const ORIGIN_BOUND_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

export interface HopsRequest {
  client: HttpClient;
  guard: EgressGuard;
  policy: EgressPolicy;
  requestId: string;
  upstreamProxy: string | null;
  /** The upstream is a managed pool exit (worker/egress/redact.ts routeOf). */
  trustedUpstream: boolean;
  url: URL;
  method: HttpMethod;
  headers: Record<string, string>;
  signal: JobSignal;
  timeoutMs: number;
  maxBodyBytes: number;
  maxRedirects: number;
  timeline: TimelineStep[];
  /** A session's cookie jar: sends its cookies on every hop and keeps every Set-Cookie answer. */
  cookies?: HopCookies;
  /** Bytes the guard counted for one hop. */
  onBytes(bytes: { in: number; out: number }): void;
}

export interface HopCookies {
  headerFor(url: string): Promise<string | null>;
  storeFrom(url: string, setCookie: string | undefined): Promise<void>;
}

export interface FetchedPage {
  finalUrl: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The method a browser uses after a redirect (Fetch standard, "HTTP-redirect fetch"). */
export function methodAfterRedirect(status: number, method: HttpMethod): HttpMethod {
  if ((status === 301 || status === 302) && method === 'POST') return 'GET';
  if (status === 303 && method !== 'GET' && method !== 'HEAD') return 'GET';
  return method;
}

function since(started: number): number {
  return Math.round(performance.now() - started);
}

function headersFor(headers: Record<string, string>, from: URL, to: URL): Record<string, string> {
  if (from.origin === to.origin) return headers;
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !ORIGIN_BOUND_HEADERS.has(name.toLowerCase())));
}

/** The caller's own Cookie header (if any) first, then the jar's cookies for this URL. */
async function withJarCookies(headers: Record<string, string>, url: URL, cookies: HopCookies): Promise<Record<string, string>> {
  const fromJar = await cookies.headerFor(url.href);
  if (fromJar === null) return headers;
  const own = Object.keys(headers).find((name) => name.toLowerCase() === 'cookie');
  if (own === undefined) return { ...headers, cookie: fromJar };
  const { [own]: ownValue, ...rest } = headers;
  return { ...rest, cookie: `${ownValue}; ${fromJar}` };
}

/** One attempt: the request and every redirect hop, each through its own guard lease. */
export async function followHops(request: HopsRequest): Promise<FetchedPage> {
  let url = request.url;
  let method = request.method;
  let headers = request.headers;
  for (let redirects = 0; ; redirects++) {
    // Direct traffic reuses kept leases and their connections (docs/ssrf.md, "Connection reuse").
    const lease = request.guard.lease({ requestId: request.requestId, upstreamProxy: request.upstreamProxy, trustedUpstream: request.trustedUpstream, reusable: true });
    const started = performance.now();
    let status: number | null = null;
    let stage = 'request';
    try {
      const response: HopResponse = await request.client.send({
        url: url.href,
        method,
        headers: request.cookies ? await withJarCookies(headers, url, request.cookies) : headers,
        proxy: {
          url: lease.proxyUrl,
          socksUrl: lease.socksUrl,
          server: lease.server,
          username: lease.username,
          password: lease.password,
          reusable: lease.reusable,
          open: (target) => lease.open(target),
        },
        signal: request.signal,
        timeoutMs: request.timeoutMs,
        maxBodyBytes: request.maxBodyBytes,
      });
      const refusal = lease.failure();
      if (refusal) throw refusal;
      status = response.status;
      await request.cookies?.storeFrom(url.href, response.headers['set-cookie']);
      request.timeline.push(...lease.timeline());
      request.timeline.push({ stage: 'request', ms: since(started), ok: true, detail: `${method} ${url.host} -> ${status}` });
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(status) && location !== undefined) {
        await response.discard();
        if (redirects >= request.maxRedirects) {
          throw new ServiceError('ERR::UPSTREAM::TOO_MANY_REDIRECTS', `More than ${request.maxRedirects} redirects`, { targetStatus: status });
        }
        stage = 'redirect';
        // Each hop may add its own abort listener to this one signal (set once, on the first redirect).
        if (redirects === 0) setMaxListeners(4 * (request.maxRedirects + 2), request.signal);
        const next = checkTargetUrl(new URL(location, url).href, request.policy);
        request.timeline.push({ stage: 'redirect', ms: 0, ok: true, detail: `${status} -> ${next.host}` });
        headers = headersFor(headers, url, next);
        method = methodAfterRedirect(status, method);
        url = next;
        continue;
      }
      stage = 'response';
      const bodyStarted = performance.now();
      const body = await response.read();
      request.timeline.push({ stage: 'response', ms: since(bodyStarted), ok: true, detail: `${body.length} bytes` });
      return { finalUrl: url.href, status, headers: response.headers, body };
    } catch (caught) {
      const error =
        caught instanceof ServiceError
          ? caught
          : (lease.failure() ?? classifyTransportError(caught, url.host, request.signal.aborted));
      if (status === null) request.timeline.push(...lease.timeline());
      request.timeline.push({ stage, ms: since(started), ok: false, detail: error.code });
      throw status !== null && error.targetStatus === null ? error.with({ targetStatus: status }) : error;
    } finally {
      request.onBytes(lease.bytes());
      lease.release();
    }
  }
}
