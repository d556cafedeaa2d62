import { lookup as dnsLookup } from 'node:dns/promises';
import { ServiceError } from '../errors/index.js';
import { canonicalAddress, classifyAddress, isIpLiteral, stripBrackets } from './address.js';

export { classifyAddress, isIpLiteral } from './address.js';

export interface EgressPolicy {
  /** Test-only setting, off by default: allow exactly the address 127.0.0.1 (nothing else in 127/8, not ::1). */
  allowLoopback: boolean;
}

export const DEFAULT_EGRESS_POLICY: EgressPolicy = Object.freeze({ allowLoopback: false });

/** Resolves a host name to every address it has (IPv4 and IPv6, as text). */
export type LookupFn = (hostname: string) => Promise<string[]>;

export const DNS_TIMEOUT_MS = 5_000;

const TARGET_SCHEMES = new Set(['http:', 'https:']);
const PROXY_SCHEMES = new Set(['http:', 'https:', 'socks5:', 'socks5h:']);

export function isAddressAllowed(ip: string, policy: EgressPolicy): boolean {
  if (policy.allowLoopback && stripBrackets(ip) === '127.0.0.1') return true;
  return classifyAddress(ip) === 'public';
}

/** The host of a URL without brackets or a trailing dot, lower-case. */
export function bareHost(url: URL): string {
  return stripBrackets(url.hostname).replace(/\.$/, '').toLowerCase();
}

function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

function blocked(what: string, host: string, reason: string): ServiceError {
  return new ServiceError('ERR::SECURITY::SSRF_BLOCKED', `${what} host ${host} is a ${reason} address`);
}

/** Refuses a host that is, on its face, not a public destination. */
function checkHostLiteral(url: URL, policy: EgressPolicy, what: string): void {
  const host = bareHost(url);
  if (isLocalhostName(host)) throw blocked(what, host, 'loopback');
  if (!isIpLiteral(host)) return;
  if (!isAddressAllowed(host, policy)) throw blocked(what, host, classifyAddress(host));
}

/**
 * Static check of a target URL before any I/O. WHATWG URL parsing already turns decimal, octal, hex
 * and short IPv4 forms into a dotted quad and compresses IPv6, so the literal check sees one notation.
 */
export function checkTargetUrl(raw: string, policy: EgressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ServiceError('ERR::SECURITY::INVALID_URL', 'url is not a valid absolute URL');
  }
  if (!TARGET_SCHEMES.has(url.protocol)) {
    throw new ServiceError('ERR::SECURITY::INVALID_URL', `url scheme ${url.protocol.replace(':', '')} is not http or https`);
  }
  if (bareHost(url) === '') throw new ServiceError('ERR::SECURITY::INVALID_URL', 'url has no host');
  if (url.port === '0') throw new ServiceError('ERR::SECURITY::INVALID_URL', 'url port 0 is not a port a server can listen on');
  if (url.username !== '' || url.password !== '') {
    throw new ServiceError(
      'ERR::SECURITY::INVALID_URL',
      'url must not carry credentials; send an Authorization header in custom_headers instead',
    );
  }
  checkHostLiteral(url, policy, 'Target');
  return url;
}

/** Static check of a caller's proxy URL: scheme http, https, socks5 or socks5h, and a public host. */
export function checkProxyUrl(raw: string, policy: EgressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', 'proxy is not a valid URL');
  }
  if (!PROXY_SCHEMES.has(url.protocol)) {
    throw new ServiceError(
      'ERR::REQUEST::INVALID_PARAMETER',
      `proxy scheme ${url.protocol.replace(':', '')} is not one of http, https, socks5, socks5h`,
    );
  }
  if (bareHost(url) === '') throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', 'proxy has no host');
  if (url.port === '0') throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', 'proxy port 0 is not a port a server can listen on');
  checkHostLiteral(url, policy, 'Proxy');
  return url;
}

export const defaultLookup: LookupFn = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
};

function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Resolves `host` and checks every address it has; one disallowed address refuses the name, so a
 * rebinding answer that mixes public and private addresses cannot slip through.
 */
export async function resolveAllowed(
  host: string,
  policy: EgressPolicy,
  lookup: LookupFn = defaultLookup,
): Promise<string[]> {
  const name = stripBrackets(host).replace(/\.$/, '').toLowerCase();
  if (isLocalhostName(name)) throw blocked('Target', name, 'loopback');
  if (isIpLiteral(name)) {
    if (!isAddressAllowed(name, policy)) throw blocked('Target', name, classifyAddress(name));
    return [canonicalAddress(name)];
  }
  const addresses = await lookupAddresses(name, lookup);
  for (const address of addresses) {
    if (!isAddressAllowed(address, policy)) {
      throw new ServiceError(
        'ERR::SECURITY::SSRF_BLOCKED',
        `Target host ${name} resolves to ${address}, a ${classifyAddress(address)} address`,
      );
    }
  }
  return addresses.map(canonicalAddress);
}

/**
 * Resolves a host the deployment itself configured, such as a managed pool exit (docs/ssrf.md, "Pool
 * exits"): trusted, so no address class is refused. Targets are never resolved with this.
 */
export async function resolveTrusted(host: string, lookup: LookupFn = defaultLookup): Promise<string[]> {
  const name = stripBrackets(host).replace(/\.$/, '').toLowerCase();
  if (isIpLiteral(name)) return [canonicalAddress(name)];
  return (await lookupAddresses(name, lookup)).map(canonicalAddress);
}

async function lookupAddresses(name: string, lookup: LookupFn): Promise<string[]> {
  let addresses: string[];
  try {
    addresses = await withTimeout(lookup(name), DNS_TIMEOUT_MS, () => new Error('DNS lookup timed out'));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ServiceError('ERR::UPSTREAM::DNS_FAILED', `Could not resolve ${name}: ${reason}`, { cause: error });
  }
  if (addresses.length === 0) {
    throw new ServiceError('ERR::UPSTREAM::DNS_FAILED', `Could not resolve ${name}: no addresses`);
  }
  return addresses;
}
