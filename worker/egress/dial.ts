import net from 'node:net';
import tls from 'node:tls';
import { SocksClient } from 'socks';
import { ServiceError } from '../../lib/errors/index.js';
import { resolveAllowed, resolveTrusted, type EgressPolicy, type LookupFn } from '../../lib/egress/policy.js';
import type { LeaseRecord } from './lease.js';
import { connectThroughHttpProxy } from './http-tunnel.js';

export const CONNECT_TIMEOUT_MS = 10_000;

const DEFAULT_PROXY_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'socks5:': 1080, 'socks5h:': 1080 };

/** What a dial records on its lease: stages and the sockets whose bytes it counts. */
export type DialLease = Pick<LeaseRecord, 'upstreamProxy' | 'trustedUpstream' | 'recordStep' | 'track'>;

export interface DialRequest {
  host: string;
  port: number;
  policy: EgressPolicy;
  lookup: LookupFn | undefined;
  lease: DialLease;
  signal: AbortSignal;
}

function errnoOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}

function targetConnectError(error: unknown, where: string): ServiceError {
  const code = errnoOf(error);
  if (code === 'ETIMEDOUT') return new ServiceError('ERR::UPSTREAM::TIMEOUT', `Connecting to ${where} timed out`);
  if (code === 'ECONNRESET') return new ServiceError('ERR::UPSTREAM::CONNECTION_RESET', `${where} reset the connection`);
  if (code === 'ECONNREFUSED') return new ServiceError('ERR::UPSTREAM::ERROR', `${where} refused the connection`);
  return new ServiceError('ERR::UPSTREAM::ERROR', `Could not connect to ${where} (${code || 'unknown error'})`);
}

/** Opens a TCP connection, bounded by the connect timeout and the caller's abort signal. */
function openTcp(host: string, port: number, signal: AbortSignal): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    // Bytes are piped as they come: Nagle would hold back the small writes of a request.
    const socket = net.connect({ host, port, noDelay: true });
    const fail = (error: unknown): void => {
      cleanup();
      socket.destroy();
      reject(error);
    };
    const onAbort = (): void => fail(Object.assign(new Error('aborted'), { code: 'ABORTED' }));
    const timer = setTimeout(() => fail(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' })), CONNECT_TIMEOUT_MS);
    const cleanup = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.removeListener('error', fail);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', fail);
    socket.once('connect', () => {
      cleanup();
      resolve(socket);
    });
  });
}

async function timed<T>(lease: DialLease, stage: string, detail: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const value = await work();
    lease.recordStep({ stage, ms: Math.round(performance.now() - started), ok: true, detail });
    return value;
  } catch (error) {
    const reason = error instanceof ServiceError ? error.code : errnoOf(error) || 'error';
    lease.recordStep({ stage, ms: Math.round(performance.now() - started), ok: false, detail: `${detail}: ${reason}` });
    throw error;
  }
}

async function dialDirect(request: DialRequest): Promise<net.Socket> {
  const { host, port, lease } = request;
  const addresses = await timed(lease, 'dns', host, () => resolveAllowed(host, request.policy, request.lookup));
  return timed(lease, 'connect', `${host}:${port}`, async () => {
    let lastError: unknown;
    for (const address of addresses) {
      try {
        return await openTcp(address, port, request.signal);
      } catch (error) {
        lastError = error;
        if (errnoOf(error) === 'ABORTED') break;
      }
    }
    throw targetConnectError(lastError, `${host}:${port}`);
  });
}

/** Checks the target name locally too, so a caller's proxy cannot be used to reach our private space by name. */
async function checkTargetThroughProxy(request: DialRequest, mustResolve: boolean): Promise<string> {
  try {
    const addresses = await resolveAllowed(request.host, request.policy, request.lookup);
    return mustResolve ? addresses[0] : request.host;
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'ERR::UPSTREAM::DNS_FAILED' && !mustResolve) return request.host;
    throw error;
  }
}

async function resolveProxyHost(proxy: URL, request: DialRequest): Promise<string> {
  try {
    if (request.lease.trustedUpstream) return (await resolveTrusted(proxy.hostname, request.lookup))[0];
    return (await resolveAllowed(proxy.hostname, request.policy, request.lookup))[0];
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'ERR::SECURITY::SSRF_BLOCKED') {
      const reason = (error.detail ?? '').replace(/^Target host \S+ /, '');
      throw new ServiceError('ERR::SECURITY::SSRF_BLOCKED', `Proxy host ${proxy.hostname} ${reason}`.trim());
    }
    throw new ServiceError('ERR::PROXY::UNREACHABLE', `Could not resolve the proxy host ${proxy.hostname}`);
  }
}

async function dialViaProxy(request: DialRequest, proxy: URL): Promise<net.Socket> {
  const { lease } = request;
  const socks = proxy.protocol === 'socks5:' || proxy.protocol === 'socks5h:';
  const destination = await timed(lease, 'dns', request.host, () => checkTargetThroughProxy(request, proxy.protocol === 'socks5:'));
  const proxyAddress = await resolveProxyHost(proxy, request);
  const proxyPort = Number(proxy.port) || DEFAULT_PROXY_PORTS[proxy.protocol];
  const endpoint = `${proxy.protocol}//${proxy.hostname}:${proxyPort}`;
  const raw = await timed(lease, 'proxy', endpoint, async () => {
    try {
      return await openTcp(proxyAddress, proxyPort, request.signal);
    } catch (error) {
      throw new ServiceError('ERR::PROXY::UNREACHABLE', `Could not connect to the proxy ${endpoint} (${errnoOf(error) || 'error'})`);
    }
  });
  lease.track(raw);
  try {
    return await timed(lease, 'connect', `${request.host}:${request.port} via proxy`, async () => {
      if (socks) return await connectThroughSocks(raw, proxy, destination, request.port);
      const carrier = proxy.protocol === 'https:' ? await startProxyTls(raw, proxy.hostname) : raw;
      return await connectThroughHttpProxy(carrier, proxy, destination, request.port);
    });
  } catch (error) {
    raw.destroy();
    throw error;
  }
}

function startProxyTls(socket: net.Socket, servername: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const secure = tls.connect({ socket, servername: net.isIP(servername) ? undefined : servername });
    secure.once('secureConnect', () => resolve(secure));
    secure.once('error', (error) => {
      reject(new ServiceError('ERR::PROXY::UNREACHABLE', `TLS handshake with the proxy failed: ${error.message}`));
    });
  });
}

async function connectThroughSocks(socket: net.Socket, proxy: URL, host: string, port: number): Promise<net.Socket> {
  try {
    const { socket: tunnel } = await SocksClient.createConnection({
      proxy: {
        host: proxy.hostname,
        port: Number(proxy.port) || 1080,
        type: 5,
        userId: proxy.username ? decodeURIComponent(proxy.username) : undefined,
        password: proxy.password ? decodeURIComponent(proxy.password) : undefined,
      },
      command: 'connect',
      destination: { host, port },
      existing_socket: socket,
      timeout: CONNECT_TIMEOUT_MS,
    });
    return tunnel;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/authentication|no accepted authentication/i.test(message)) {
      throw new ServiceError('ERR::PROXY::AUTH_FAILED', 'The SOCKS proxy refused the credentials');
    }
    if (/rejected connection/i.test(message)) {
      throw new ServiceError('ERR::UPSTREAM::ERROR', `The SOCKS proxy could not reach ${host}:${port} (${message})`);
    }
    throw new ServiceError('ERR::PROXY::UNREACHABLE', `SOCKS handshake with the proxy failed: ${message}`);
  }
}

/**
 * A connected socket to host:port, directly or through the lease's caller proxy. Every address is
 * checked against the policy here, at connect time. Throws a ServiceError.
 */
export async function dial(request: DialRequest): Promise<net.Socket> {
  const proxy = request.lease.upstreamProxy;
  const socket = proxy ? await dialViaProxy(request, proxy) : await dialDirect(request);
  if (!proxy) request.lease.track(socket);
  return socket;
}
