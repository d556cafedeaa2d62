import { errors as playwrightErrors } from 'playwright-core';
import { isErrorCode, ServiceError } from '../../lib/errors/index.js';
import type { EgressLease } from '../egress/guard.js';

/** Chromium network error -> catalogue code, for failures of the main document. */
const NET_ERRORS: Array<[RegExp, ServiceError['code']]> = [
  [/ERR_NAME_NOT_RESOLVED|ERR_NAME_RESOLUTION_FAILED/, 'ERR::UPSTREAM::DNS_FAILED'],
  [/ERR_CERT_|ERR_SSL_|ERR_BAD_SSL/, 'ERR::UPSTREAM::TLS_FAILED'],
  [/ERR_CONNECTION_RESET|ERR_CONNECTION_CLOSED|ERR_EMPTY_RESPONSE/, 'ERR::UPSTREAM::CONNECTION_RESET'],
  [/ERR_TOO_MANY_REDIRECTS/, 'ERR::UPSTREAM::TOO_MANY_REDIRECTS'],
  [/ERR_TIMED_OUT|ERR_CONNECTION_TIMED_OUT/, 'ERR::UPSTREAM::TIMEOUT'],
];

const BROWSER_GONE = /Target page, context or browser has been closed|Browser has been closed|Browser closed|browser has disconnected|Page crashed|page crashed|Target crashed|Connection closed/i;

export function isBrowserGone(error: unknown): boolean {
  return error instanceof Error && BROWSER_GONE.test(error.message);
}

export function isPlaywrightTimeout(error: unknown): boolean {
  return error instanceof playwrightErrors.TimeoutError;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').slice(0, 300);
}

export function renderFailed(detail: string, cause?: unknown): ServiceError {
  return new ServiceError('ERR::ENGINE::RENDER_FAILED', detail, { cause });
}

export function budgetTimeout(stage: string): ServiceError {
  return new ServiceError('ERR::UPSTREAM::TIMEOUT', `Render did not finish within the time budget (${stage})`, {
    diagnostics: { failed_at: stage },
  });
}

/** The guard's own refusal of the main document, as its ServiceError. */
export function egressRefusal(lease: EgressLease, headerCode: string | undefined): ServiceError {
  const recorded = lease.failure();
  if (recorded && (headerCode === undefined || recorded.code === headerCode)) return recorded;
  const code = headerCode !== undefined && isErrorCode(headerCode) ? headerCode : 'ERR::UPSTREAM::ERROR';
  return new ServiceError(code, 'The egress guard refused the page');
}

/**
 * What a failed `page.goto` means for the caller: the guard's refusal, a network failure of the
 * target, a budget timeout, or a browser that died (retryable RENDER_FAILED).
 */
export function navigationError(error: unknown, lease: EgressLease, budgetSpent: boolean): ServiceError {
  if (error instanceof ServiceError) return error;
  if (budgetSpent || isPlaywrightTimeout(error)) return budgetTimeout('navigate');
  if (isBrowserGone(error)) return renderFailed('The browser stopped during the render', error);
  const message = firstLine(error);
  if (/ERR_TUNNEL_CONNECTION_FAILED|ERR_PROXY_CONNECTION_FAILED|ERR_PROXY_AUTH/.test(message)) {
    return egressRefusal(lease, undefined);
  }
  if (/Download is starting/i.test(message)) {
    return new ServiceError('ERR::UPSTREAM::ERROR', 'The target answered with a file download, which renders do not accept');
  }
  if (/ERR_ACCESS_DENIED|ERR_BLOCKED_BY_CLIENT|ERR_UNKNOWN_URL_SCHEME/.test(message)) {
    return new ServiceError('ERR::SECURITY::URL_BLOCKED', 'The page navigated to a URL renders may not load');
  }
  const failure = lease.failure();
  if (failure) return failure;
  for (const [pattern, code] of NET_ERRORS) {
    if (pattern.test(message)) return new ServiceError(code, message);
  }
  return new ServiceError('ERR::UPSTREAM::ERROR', message, { cause: error });
}
