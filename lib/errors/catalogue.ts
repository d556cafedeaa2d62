/**
 * The one error catalogue (the API reference lists each route's codes): code, HTTP status, retryability and title.
 * Nothing else in the code base decides these three facts for a code.
 */
export interface CatalogueEntry {
  readonly status: number;
  readonly retryable: boolean;
  readonly title: string;
}

export const ERROR_CATALOGUE = {
  // Authentication and authorisation
  'ERR::AUTH::MISSING_KEY': { status: 401, retryable: false, title: 'No API key' },
  'ERR::AUTH::INVALID_KEY': { status: 401, retryable: false, title: 'Malformed or unknown API key' },
  'ERR::AUTH::REVOKED_KEY': { status: 401, retryable: false, title: 'API key revoked' },
  'ERR::AUTH::EXPIRED_KEY': { status: 401, retryable: false, title: 'API key expired' },
  'ERR::AUTH::FORBIDDEN': { status: 403, retryable: false, title: 'Organization may not act' },
  'ERR::AUTH::INSUFFICIENT_SCOPE': { status: 403, retryable: false, title: 'Scope missing' },
  'ERR::AUTH::ENGINE_NOT_ENTITLED': { status: 403, retryable: false, title: 'Engine not in plan' },
  'ERR::AUTH::INVALID_TOKEN': { status: 401, retryable: false, title: 'Dashboard token invalid' },
  'ERR::AUTH::INVALID_CREDENTIALS': { status: 401, retryable: false, title: 'Dashboard sign-in failed' },
  // Request shape
  'ERR::REQUEST::INVALID': { status: 400, retryable: false, title: 'Invalid request' },
  'ERR::REQUEST::MISSING_PARAMETER': { status: 400, retryable: false, title: 'Required parameter absent' },
  'ERR::REQUEST::INVALID_PARAMETER': { status: 400, retryable: false, title: 'Invalid parameter' },
  'ERR::REQUEST::INCOMPATIBLE_FLAGS': { status: 400, retryable: false, title: 'Incompatible parameters' },
  'ERR::REQUEST::CAPABILITY_UNSUPPORTED': { status: 400, retryable: false, title: 'Engine cannot do this' },
  'ERR::REQUEST::NOT_FOUND': { status: 404, retryable: false, title: 'Resource not found' },
  'ERR::REQUEST::BEYOND_RETENTION': { status: 410, retryable: false, title: 'Beyond retention' },
  'ERR::REQUEST::CONFLICT': { status: 409, retryable: false, title: 'Conflict' },
  'ERR::REQUEST::PAYLOAD_TOO_LARGE': { status: 413, retryable: false, title: 'Payload too large' },
  // Security
  'ERR::SECURITY::SSRF_BLOCKED': { status: 400, retryable: false, title: 'Private or reserved address blocked' },
  'ERR::SECURITY::URL_BLOCKED': { status: 400, retryable: false, title: 'URL blocked' },
  'ERR::SECURITY::INVALID_URL': { status: 400, retryable: false, title: 'URL invalid' },
  // Sessions
  'ERR::SESSION::NOT_FOUND': { status: 404, retryable: false, title: 'Session not found' },
  'ERR::SESSION::EXPIRED': { status: 410, retryable: false, title: 'Session expired' },
  'ERR::SESSION::RELEASED': { status: 410, retryable: false, title: 'Session released' },
  'ERR::SESSION::BUSY': { status: 409, retryable: true, title: 'Session busy' },
  'ERR::SESSION::STATE_CORRUPT': { status: 500, retryable: false, title: 'Session state unreadable' },
  // Limits
  'ERR::LIMIT::RATE_LIMITED': { status: 429, retryable: true, title: 'Rate limited' },
  'ERR::LIMIT::CONCURRENCY_EXCEEDED': { status: 429, retryable: true, title: 'Concurrency slots busy' },
  'ERR::LIMIT::QUOTA_EXCEEDED': { status: 402, retryable: false, title: 'Monthly credit ceiling reached' },
  'ERR::LIMIT::MAX_COST_EXCEEDED': { status: 400, retryable: false, title: 'Cost above max_cost' },
  'ERR::LIMIT::SESSIONS_EXCEEDED': { status: 429, retryable: true, title: 'Live session limit reached' },
  // Upstream (the target site)
  'ERR::UPSTREAM::TIMEOUT': { status: 504, retryable: true, title: 'Target did not answer in time' },
  'ERR::UPSTREAM::DNS_FAILED': { status: 502, retryable: true, title: 'DNS failure' },
  'ERR::UPSTREAM::TLS_FAILED': { status: 502, retryable: true, title: 'TLS failure' },
  'ERR::UPSTREAM::CONNECTION_RESET': { status: 502, retryable: true, title: 'Connection reset' },
  'ERR::UPSTREAM::TOO_MANY_REDIRECTS': { status: 502, retryable: false, title: 'Too many redirects' },
  'ERR::UPSTREAM::ERROR': { status: 502, retryable: true, title: 'Upstream failure' },
  'ERR::UPSTREAM::CHALLENGE': { status: 502, retryable: true, title: 'Bot challenge served' },
  // Proxies
  'ERR::PROXY::EXHAUSTED': { status: 503, retryable: true, title: 'No proxy exit available' },
  'ERR::PROXY::UNREACHABLE': { status: 502, retryable: false, title: 'Proxy unreachable' },
  'ERR::PROXY::AUTH_FAILED': { status: 502, retryable: false, title: 'Proxy authentication failed' },
  'ERR::PROXY::RATE_LIMITED': { status: 502, retryable: true, title: 'Proxy exit rate limited' },
  // Engines
  'ERR::ENGINE::RENDER_FAILED': { status: 502, retryable: true, title: 'Render failed' },
  'ERR::ENGINE::UNAVAILABLE': { status: 503, retryable: true, title: 'Engine unavailable' },
  // Extraction
  'ERR::EXTRACT::FAILED': { status: 502, retryable: false, title: 'Model extraction failed' },
  'ERR::EXTRACT::INVALID_RULES': { status: 400, retryable: false, title: 'Extraction rules invalid' },
  // Internal
  'ERR::INTERNAL::ERROR': { status: 500, retryable: true, title: 'Internal error' },
  'ERR::INTERNAL::UNAVAILABLE': { status: 503, retryable: true, title: 'Internal dependency unavailable' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** `/v1/browser` is the one route where ENGINE::UNAVAILABLE is a permanent 501 (docs/api-reference.md "Problem body"). */
export const BROWSER_ROUTE_UNAVAILABLE: CatalogueEntry = {
  status: 501,
  retryable: false,
  title: ERROR_CATALOGUE['ERR::ENGINE::UNAVAILABLE'].title,
};

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CATALOGUE, value);
}

/** `ERR::UPSTREAM::CHALLENGE` -> `UPSTREAM_CHALLENGE` (problem `type` anchor and request-log `error_code`). */
export function codeAnchor(code: ErrorCode): string {
  return code.replace(/^ERR::/, '').replace(/::/g, '_');
}
