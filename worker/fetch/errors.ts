import { ServiceError, type ErrorCode } from '../../lib/errors/index.js';

/** Failures worth another attempt of an idempotent method. */
export const TRANSIENT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'ERR::UPSTREAM::CONNECTION_RESET',
  'ERR::UPSTREAM::TIMEOUT',
  'ERR::UPSTREAM::DNS_FAILED',
]);

export const HINTS: Partial<Record<ErrorCode, string>> = {
  'ERR::UPSTREAM::TIMEOUT': 'The target did not answer in time; retry later, or check that the site is up.',
  'ERR::UPSTREAM::DNS_FAILED': 'The host name did not resolve; check the spelling of the URL.',
  'ERR::UPSTREAM::TLS_FAILED': 'The TLS handshake failed (for example an invalid certificate); check the site in a browser, or try impersonate=false.',
  'ERR::UPSTREAM::CONNECTION_RESET': 'The target closed the connection; retry, or try another proxy.',
  'ERR::UPSTREAM::TOO_MANY_REDIRECTS': 'The site redirects in a loop or too often; request the final URL directly.',
  'ERR::UPSTREAM::ERROR': 'The target could not be fetched; check that the URL works, then retry.',
  'ERR::SECURITY::SSRF_BLOCKED': 'Only public internet addresses can be scraped; use a public host name or address.',
  'ERR::SECURITY::INVALID_URL': 'Send an absolute http or https URL with a host.',
  'ERR::PROXY::UNREACHABLE': 'Your proxy could not be reached; check its host, port and scheme.',
  'ERR::PROXY::AUTH_FAILED': 'Your proxy refused the credentials; check the user name and password in the proxy URL.',
  'ERR::PROXY::RATE_LIMITED': 'Your proxy provider is rate limiting this exit; slow down or rotate exits.',
};

function codeOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return '';
  const own = 'code' in value ? String(value.code) : '';
  const cause = 'cause' in value ? codeOf(value.cause) : '';
  return own || cause;
}

function messageOf(value: unknown): string {
  if (!(value instanceof Error)) return String(value);
  return `${value.name}: ${value.message} ${value.cause ? messageOf(value.cause) : ''}`;
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(VERIFY|GET)_|EPROTO$|HOSTNAME_MISMATCH)/;
const TLS_MESSAGES = /certificate|InvalidCertificate|tls handshake|handshake failure|InvalidContentType|AlertReceived|CorruptMessage|UnknownIssuer|wrong version number/i;
const RESET_CODES = /^(ECONNRESET|EPIPE|UND_ERR_SOCKET|ECONNABORTED)$/;
const RESET_MESSAGES = /reset|IncompleteMessage|connection closed|other side closed|socket hang up|broken pipe|ReadError|CloseError|unexpected end of file/i;
const TIMEOUT_CODES = /^(UND_ERR_(CONNECT|HEADERS|BODY)_TIMEOUT|ETIMEDOUT|ABORT_ERR)$/;

/** Maps an impit or undici failure to a catalogue error. Guard refusals are read from the lease instead. */
export function classifyTransportError(error: unknown, host: string, timedOut: boolean): ServiceError {
  if (error instanceof ServiceError) return error;
  const code = codeOf(error);
  const message = messageOf(error);
  if (timedOut || TIMEOUT_CODES.test(code) || /TimeoutError|ConnectTimeout|ReadTimeout|timed out/i.test(message)) {
    return new ServiceError('ERR::UPSTREAM::TIMEOUT', `${host} did not answer within the time budget`, { cause: error });
  }
  if (TLS_CODES.test(code) || TLS_MESSAGES.test(message)) {
    return new ServiceError('ERR::UPSTREAM::TLS_FAILED', `TLS with ${host} failed (${code || 'handshake or certificate error'})`, { cause: error });
  }
  if (RESET_CODES.test(code) || RESET_MESSAGES.test(message)) {
    return new ServiceError('ERR::UPSTREAM::CONNECTION_RESET', `${host} closed the connection before the response was complete`, { cause: error });
  }
  return new ServiceError('ERR::UPSTREAM::ERROR', `Fetching ${host} failed (${code || (error instanceof Error ? error.name : 'error')})`, { cause: error });
}
