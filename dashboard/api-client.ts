import type { KeyEnvironment } from '../lib/apikeys.js';
import { ServiceError, isErrorCode } from '../lib/errors/index.js';
import type { Db } from '../lib/store/db.js';
import { createInternalKey } from '../lib/store/dashboard/keys.js';

const KEY_LIFETIME_MS = 15 * 60_000;
const RENEW_BEFORE_MS = 2 * 60_000;

export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * The dashboard's way to the public API for what the gateway alone implements (batch controls and
 * results): it calls `/v1` like any client, with a short-lived internal key per project and
 * environment (never listed, expires by itself), so the API's rules apply unchanged.
 */
export class ApiClient {
  private readonly keys = new Map<string, { secret: string; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly apiUrl: () => string,
  ) {}

  async call(projectId: string, environment: KeyEnvironment, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer> {
    const response = await this.open(projectId, environment, method, path, undefined, body);
    return { status: response.status, headers: response.headers, body: await response.text() };
  }

  /** The API's answer with its body unread, for passing a large one on as it arrives. */
  async open(projectId: string, environment: KeyEnvironment, method: 'GET' | 'POST', path: string, signal?: AbortSignal, body?: unknown): Promise<Response> {
    const secret = await this.keyFor(projectId, environment);
    const headers: Record<string, string> = { authorization: `Bearer ${secret}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return fetch(`${this.apiUrl()}${path}`, { method, headers, signal, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  /** Like `call`, but a problem answer is rethrown as the same ServiceError, and the body is parsed JSON. */
  async json(projectId: string, environment: KeyEnvironment, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const answer = await this.call(projectId, environment, method, path, body);
    if (answer.status >= 400) throw rethrown(answer);
    return JSON.parse(answer.body) as unknown;
  }

  private async keyFor(projectId: string, environment: KeyEnvironment): Promise<string> {
    const name = `${projectId}:${environment}`;
    const cached = this.keys.get(name);
    if (cached && cached.until - RENEW_BEFORE_MS > Date.now()) return cached.secret;
    const expiresAt = new Date(Date.now() + KEY_LIFETIME_MS);
    const { secret } = await createInternalKey(this.db, projectId, environment, expiresAt);
    this.keys.set(name, { secret, until: expiresAt.getTime() });
    return secret;
  }
}

export function rethrown(answer: ApiAnswer): ServiceError {
  let parsed: { code?: unknown; detail?: unknown } = {};
  try {
    parsed = JSON.parse(answer.body) as typeof parsed;
  } catch {
    // not a problem body
  }
  const code = isErrorCode(parsed.code) ? parsed.code : 'ERR::INTERNAL::ERROR';
  const retryAfter = Number(answer.headers.get('retry-after'));
  return new ServiceError(code, typeof parsed.detail === 'string' ? parsed.detail : undefined, Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {});
}
