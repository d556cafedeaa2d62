/**
 * What an answer that shows stored scrape parameters (a batch job's `params`, in every job answer,
 * the dashboard and webhook payloads) never shows: the password of `proxy` and the values of
 * credential-bearing `custom_headers`. The job itself still runs with the values it was given.
 * docs/batch.md, "Secrets in params", is the documented list.
 */
export const REDACTED = '[redacted]';

/** Header names that carry credentials whatever their value. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
/** Any header whose name holds one of these words is taken as credential-bearing (X-Api-Key, X-Auth-Token, X-Session-Id...). */
const CREDENTIAL_WORDS = /auth|token|secret|passw|key|session|cookie|credential|signature|csrf|xsrf|bearer/i;

export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADERS.has(name.toLowerCase()) || CREDENTIAL_WORDS.test(name);
}

/** The proxy URL with its password replaced (the user name stays, to tell exits apart); unreadable: all of it. */
export function redactProxy(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return REDACTED;
  }
  if (url.password === '') return raw;
  const rest = `${url.pathname === '/' && !raw.endsWith('/') ? '' : url.pathname}${url.search}${url.hash}`;
  return `${url.protocol}//${url.username}:${REDACTED}@${url.host}${rest}`;
}

function redactHeaders(headers: unknown): unknown {
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) return headers;
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, isCredentialHeader(name) ? REDACTED : value]));
}

/** Stored parameters (a caller's raw body or overrides) as they may be shown back. */
export function redactParams(params: Record<string, unknown>): Record<string, unknown> {
  const out = { ...params };
  if (typeof out.proxy === 'string') out.proxy = redactProxy(out.proxy);
  if (out.custom_headers !== undefined) out.custom_headers = redactHeaders(out.custom_headers);
  return out;
}
