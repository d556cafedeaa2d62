import http from 'node:http';
import { createProxy } from 'proxy';
import { listenOnLoopback, proxyUrl, startSocksServer, type LoopbackServer, type ProxyAuth } from './loopback-proxy.js';

export type { ProxyAuth } from './loopback-proxy.js';

/** A proxy a caller passes as `proxy`: an HTTP or SOCKS5 proxy on loopback. */
export interface TestProxy {
  /** Proxy URL with the configured credentials in userinfo, e.g. `http://user:pass@127.0.0.1:4000`. */
  url: string;
  /** The same without credentials. */
  endpoint: string;
  /** TCP connections accepted so far. */
  connections(): number;
  /** Destinations (`host:port`) the proxy was asked to reach, in order. */
  targets(): string[];
  close(): Promise<void>;
}

function testProxy(scheme: string, server: LoopbackServer, destinations: string[], auth?: ProxyAuth): TestProxy {
  return {
    url: proxyUrl(scheme, server.port, auth),
    endpoint: proxyUrl(scheme, server.port),
    connections: server.connections,
    targets: () => [...destinations],
    close: server.close,
  };
}

/** An HTTP forward proxy (the `proxy` package) on loopback, with optional Basic authentication. */
export async function startHttpProxy(options: { auth?: ProxyAuth } = {}): Promise<TestProxy> {
  const server = createProxy(http.createServer());
  const destinations: string[] = [];
  server.on('connect', (req: http.IncomingMessage) => destinations.push(req.url ?? ''));
  server.on('request', (req: http.IncomingMessage) => destinations.push(req.url ?? ''));
  const expected = options.auth ? `Basic ${Buffer.from(`${options.auth.user}:${options.auth.pass}`).toString('base64')}` : null;
  if (expected) server.authenticate = (req) => req.headers['proxy-authorization'] === expected;
  return testProxy('http', await listenOnLoopback(server), destinations, options.auth);
}

/** A minimal SOCKS5 proxy (RFC 1928 CONNECT, RFC 1929 user/pass) on loopback. */
export async function startSocksProxy(options: { auth?: ProxyAuth } = {}): Promise<TestProxy> {
  const destinations: string[] = [];
  const server = await startSocksServer({ auth: options.auth, onConnect: (destination) => destinations.push(destination) });
  return testProxy('socks5', server, destinations, options.auth);
}
