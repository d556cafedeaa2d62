import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';

/** How often Node looks for requests past their time limits (its default, 30 s, would let one run 30 s over). */
const TIMEOUT_CHECK_MS = 1000;

/** What one HTTP server of Trawler allows a client (docs/platform.md "Connection limits"). */
export interface ServerLimits {
  /** Open connections at most; Node closes one more at once, before it costs a request. */
  maxConnections: number;
  /** The whole request, headers and body, must arrive within this; else the connection closes (the gateway answers a 400 problem first). */
  requestTimeoutMs: number;
  /** The request's headers must arrive within this (at most `requestTimeoutMs`). */
  headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
}

/** The gateway's: time for a large batch body on a slow link, idle sockets kept past a load balancer's 60 s. */
export function gatewayServerLimits(config: { GATEWAY_MAX_CONNECTIONS: number; GATEWAY_REQUEST_TIMEOUT_MS: number }): ServerLimits {
  // Idle keep-alive sockets are closed by the client (undici: 4 s), never by us at the moment it
  // reuses one ("other side closed"); 65 s also outlasts the usual load balancer idle timeout of 60 s.
  const requestTimeoutMs = config.GATEWAY_REQUEST_TIMEOUT_MS;
  return { maxConnections: config.GATEWAY_MAX_CONNECTIONS, requestTimeoutMs, headersTimeoutMs: Math.min(66_000, requestTimeoutMs), keepAliveTimeoutMs: 65_000 };
}

/** The dashboard's: small JSON bodies (64 kB at most) from people's browsers. */
export function dashboardServerLimits(config: { DASHBOARD_MAX_CONNECTIONS: number }): ServerLimits {
  return { maxConnections: config.DASHBOARD_MAX_CONNECTIONS, requestTimeoutMs: 30_000, headersTimeoutMs: 20_000, keepAliveTimeoutMs: 5_000 };
}

export function createLimitedServer(listener: RequestListener, limits: ServerLimits, options: ServerOptions = {}): Server {
  const server = createServer({ ...options, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: TIMEOUT_CHECK_MS }, listener);
  server.headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  return server;
}
