/** Calls the dashboard's JSON API on this origin; state changes carry the session's CSRF token. */
export interface Problem {
  status: number;
  code: string;
  detail?: string;
  title?: string;
  retry_after_seconds?: number;
}

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.code}${problem.detail ? `: ${problem.detail}` : ''}`);
  }
}

let sessionRefused: (() => void) | undefined;
/** Called when the API refused a call with INVALID_TOKEN (an expired session, or a used invitation link). */
export function onInvalidToken(handler: () => void): void {
  sessionRefused = handler;
}

let csrfToken = '';
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const response = await fetch(`/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as unknown) : undefined;
  if (!response.ok) {
    const problem = (parsed ?? { status: response.status, code: 'ERR::INTERNAL::ERROR' }) as Problem;
    if (problem.code === 'ERR::AUTH::INVALID_TOKEN') sessionRefused?.();
    throw new ApiError(problem);
  }
  return parsed as T;
}
