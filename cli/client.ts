import { packageVersion } from '../lib/version.js';
import { ApiError, connectionProblem, problemFrom, type Problem } from './problem.js';
import { DEFAULT_RETRY_POLICY, retryDelay, type OnDrop, type RetryPolicy } from './retry.js';

export interface ClientOptions {
  apiUrl: string;
  apiKey: string | undefined;
  /** Per attempt; 0 means no client-side limit. */
  timeoutMs: number;
  retry?: RetryPolicy;
  /** Told before each wait, so the command can say why it pauses. */
  onRetry?: (info: { problem: Problem; delayMs: number; retry: number; maxRetries: number }) => void;
  sleep?: (ms: number) => Promise<void>;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  onDrop?: OnDrop;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  requestId: string | null;
  attempts: number;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The gateway over HTTP: Bearer key, JSON bodies, and the client retry rules (docs/cli.md "Retries") on every call. */
export class ApiClient {
  private readonly base: URL;
  private readonly retry: RetryPolicy;
  private readonly userAgent = `trawler-cli/${packageVersion()}`;

  constructor(private readonly options: ClientOptions) {
    this.base = new URL(options.apiUrl.endsWith('/') ? options.apiUrl : `${options.apiUrl}/`);
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
  }

  /** Any status >= 400 (or no answer) becomes an ApiError once the retry rules give up. */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const url = this.urlFor(path, options.query);
    const onDrop = options.onDrop ?? (method === 'GET' ? 'once' : 'never');
    for (let attempt = 0; ; attempt += 1) {
      const outcome = await this.attempt(method, url, options.json);
      if ('response' in outcome) return { ...outcome.response, attempts: attempt + 1 };
      const delayMs = retryDelay(outcome.problem, attempt, outcome.retryAfter, this.retry, onDrop);
      if (delayMs === null) throw new ApiError(outcome.problem, attempt + 1);
      this.options.onRetry?.({ problem: outcome.problem, delayMs, retry: attempt + 1, maxRetries: this.retry.maxRetries });
      await (this.options.sleep ?? sleepFor)(delayMs);
    }
  }

  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.request(method, path, options);
    return JSON.parse(response.body.toString('utf8')) as T;
  }

  private urlFor(path: string, query: RequestOptions['query']): URL {
    const url = new URL(path.replace(/^\//, ''), this.base);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url;
  }

  private async attempt(
    method: string,
    url: URL,
    json: unknown,
  ): Promise<{ response: Omit<ApiResponse, 'attempts'> } | { problem: Problem; retryAfter: string | null }> {
    const headers: Record<string, string> = { 'user-agent': this.userAgent, accept: '*/*' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (json !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    let body: Buffer;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: json === undefined ? undefined : JSON.stringify(json),
        signal: this.options.timeoutMs > 0 ? AbortSignal.timeout(this.options.timeoutMs) : undefined,
      });
      body = Buffer.from(await response.arrayBuffer());
    } catch (error) {
      return { problem: connectionProblem(url.origin + url.pathname, error), retryAfter: null };
    }
    const requestId = response.headers.get('x-request-id');
    if (isProblem(response)) {
      return { problem: problemFrom(response.status, body, requestId), retryAfter: response.headers.get('retry-after') };
    }
    return { response: { status: response.status, headers: response.headers, body, requestId } };
  }
}

/** A successful scrape with `original_status=true` may carry 4xx/5xx; it has X-Target-Status and no problem body. */
function isProblem(response: Response): boolean {
  if (response.status < 400) return false;
  const type = response.headers.get('content-type') ?? '';
  return type.includes('problem+json') || !response.headers.has('x-target-status');
}
