import { setMaxListeners } from 'node:events';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Server, Socket } from 'node:net';
import { ServiceError, type TimelineStep } from '../../lib/errors/index.js';
import { bareHost, checkProxyUrl, checkTargetUrl, type EgressPolicy, type LookupFn } from '../../lib/egress/policy.js';
import { dial } from './dial.js';
import { LeaseRecord, type EgressLease } from './lease.js';
import { SocksReply, socksReplyFor, startSocksServer } from './socks-server.js';
import { upstreamAgent } from './upstream-agent.js';

export type { EgressLease, BlockedDestination } from './lease.js';

/** Header on every answer the guard itself makes, naming the error code; targets never set it. */
export const EGRESS_ERROR_HEADER = 'x-trawler-egress-error';

/** Released reusable leases kept for later requests; about the fetch engine's capacity. */
const MAX_IDLE_LEASES = 32;

/**
 * A kept-alive dial is not one request's: the connect timeout bounds it, not a caller's abort. Every
 * such dial listens on this one signal while it connects, so a busy worker has many listeners at once.
 */
const NEVER_ABORTED = new AbortController().signal;
setMaxListeners(0, NEVER_ABORTED);

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

function refusalStatus(error: ServiceError): number {
  if (error.code === 'ERR::SECURITY::SSRF_BLOCKED' || error.code === 'ERR::SECURITY::INVALID_URL') return 403;
  if (error.code === 'ERR::UPSTREAM::TIMEOUT') return 504;
  return 502;
}

function asServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ServiceError('ERR::UPSTREAM::ERROR', `Egress failed: ${message}`, { cause: error });
}

function writeRawRefusal(socket: Duplex, status: number, reason: string, extra: string[] = []): void {
  if (socket.destroyed) return;
  socket.end([`HTTP/1.1 ${status} ${reason}`, ...extra, 'Connection: close', 'Content-Length: 0', '', ''].join('\r\n'));
}

function filterRawHeaders(raw: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (!HOP_BY_HOP.has(raw[i].toLowerCase())) kept.push(raw[i], raw[i + 1]);
  }
  return kept;
}

/** Bytes both ways; either side closing or failing closes both. */
export function pipeBoth(a: Duplex, b: Duplex): void {
  a.pipe(b);
  b.pipe(a);
  const closeBoth = (): void => {
    a.destroy();
    b.destroy();
  };
  a.once('close', closeBoth);
  b.once('close', closeBoth);
  a.on('error', closeBoth);
  b.on('error', closeBoth);
}

/**
 * The worker's egress guard: a forward proxy on 127.0.0.1 that every engine sends traffic through.
 * It resolves each destination itself and checks every address against the policy at connect time.
 */
export class EgressGuard {
  private readonly leases = new Map<string, LeaseRecord>();
  /** Reusable leases no request holds now, most recently used last. */
  private readonly idle: LeaseRecord[] = [];
  /** Keep-alive upstream connections of reusable leases, per lease: sockets never cross leases. */
  private readonly agents = new Map<LeaseRecord, http.Agent>();
  private readonly clients = new Set<Socket>();

  private readonly server = http.createServer();
  /** The SOCKS5 listener for direct traffic; started with the HTTP one. */
  private socks: Server | null = null;
  private ports = { http: 0, socks: 0 };

  private constructor(
    private readonly policy: EgressPolicy,
    private readonly lookup: LookupFn | undefined,
  ) {
    const server = this.server;
    server.on('connection', (socket: Socket) => this.trackClient(socket));
    server.on('request', (req, res) => void this.handleRequest(req, res));
    server.on('connect', (req, socket, head) => void this.handleTunnel(req, socket, head, 'connect'));
    server.on('upgrade', (req, socket, head) => void this.handleTunnel(req, socket, head, 'upgrade'));
  }

  static async start(options: { policy: EgressPolicy; lookup?: LookupFn }): Promise<EgressGuard> {
    const guard = new EgressGuard(options.policy, options.lookup);
    const server = guard.server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('egress guard has no TCP address');
    const socks = await startSocksServer({
      authenticate: (username, password) => guard.leaseFor(username, password),
      connect: (lease, host, port, client, reply) => guard.handleSocks(lease as LeaseRecord, host, port, client, reply),
    });
    socks.server.on('connection', (socket: Socket) => guard.trackClient(socket));
    guard.socks = socks.server;
    guard.ports = { http: address.port, socks: socks.port };
    return guard;
  }

  /** The HTTP forward-proxy port (caller proxies, browsers, undici). */
  get port(): number {
    return this.ports.http;
  }

  private trackClient(socket: Socket): void {
    this.clients.add(socket);
    socket.once('close', () => this.clients.delete(socket));
  }

  /**
   * Credentials for one request; throws SSRF_BLOCKED or INVALID_PARAMETER for a bad caller proxy.
   * `reusable` (direct traffic only) hands out a kept lease whose connections outlive the request.
   */
  lease(options: { requestId: string; upstreamProxy: string | null; reusable?: boolean }): EgressLease {
    if (options.reusable && options.upstreamProxy === null) return this.reusableLease(options.requestId);
    const upstream = options.upstreamProxy === null ? null : checkProxyUrl(options.upstreamProxy, this.policy);
    const record = new LeaseRecord(options.requestId, upstream, this.ports, (done) => this.leases.delete(done.username), this.openForLease);
    this.leases.set(record.username, record);
    return record;
  }

  private reusableLease(requestId: string): LeaseRecord {
    const kept = this.idle.pop();
    if (kept) return kept.checkOut(requestId);
    const record = new LeaseRecord(requestId, null, this.ports, (done) => this.keepIdle(done), this.openForLease, true);
    this.leases.set(record.username, record);
    return record;
  }

  /** Bounded: past MAX_IDLE_LEASES a released lease is dropped with its connections. */
  private keepIdle(lease: LeaseRecord): void {
    if (this.idle.length < MAX_IDLE_LEASES) {
      this.idle.push(lease);
      return;
    }
    this.leases.delete(lease.username);
    this.agents.get(lease)?.destroy();
    this.agents.delete(lease);
  }

  async close(): Promise<void> {
    for (const agent of this.agents.values()) agent.destroy();
    for (const socket of this.clients) socket.destroy();
    await Promise.all([
      new Promise<void>((resolve) => this.server.close(() => resolve())),
      new Promise<void>((resolve) => (this.socks ? this.socks.close(() => resolve()) : resolve())),
    ]);
  }

  /** The lease's own keep-alive agent; its new connections are dialled (and checked) by open(). */
  private agentOf(lease: LeaseRecord): http.Agent {
    let agent = this.agents.get(lease);
    if (!agent) {
      agent = upstreamAgent((target) => this.open(lease, target, NEVER_ABORTED));
      this.agents.set(lease, agent);
    }
    return agent;
  }

  private authenticate(req: http.IncomingMessage): LeaseRecord | null {
    const header = req.headers['proxy-authorization'];
    const match = typeof header === 'string' ? /^Basic\s+(\S+)$/i.exec(header) : null;
    if (!match) return null;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1) return null;
    return this.leaseFor(decoded.slice(0, colon), decoded.slice(colon + 1));
  }

  /** The lease a request holds now under these credentials, or null. */
  private leaseFor(username: string, password: string): LeaseRecord | null {
    const lease = this.leases.get(username);
    return lease && lease.active && lease.passwordMatches(password) ? lease : null;
  }

  /** A reset from the target, reported to the use of the lease that opened the connection. */
  private watchReset(lease: LeaseRecord, use: number, upstream: Socket, host: string): void {
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' && lease.isCurrent(use)) {
        lease.recordFailure(new ServiceError('ERR::UPSTREAM::CONNECTION_RESET', `${host} reset the connection`));
      }
    });
  }

  /**
   * A SOCKS5 CONNECT: the same checked open as a CONNECT tunnel, then bytes only. A refusal is
   * recorded on the lease by open(), where the engine reads it; the SOCKS reply carries only a code.
   */
  private async handleSocks(lease: LeaseRecord, host: string, port: number, client: Socket, reply: (code: number) => void): Promise<void> {
    const use = lease.use;
    const abort = new AbortController();
    client.once('close', () => abort.abort());
    let target: URL;
    try {
      target = new URL(`http://${host.includes(':') ? `[${host}]` : host}:${port}/`);
    } catch {
      lease.recordFailure(new ServiceError('ERR::SECURITY::INVALID_URL', `${host} is not a valid host name`));
      return reply(SocksReply.notAllowed);
    }
    let upstream: Socket;
    try {
      upstream = await this.open(lease, target, abort.signal);
    } catch (caught) {
      return reply(socksReplyFor(asServiceError(caught)));
    }
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    this.watchReset(lease, use, upstream, `${host}:${port}`);
    reply(SocksReply.granted);
    pipeBoth(client, upstream);
  }

  /** A lease's in-process connection: a kept connection is not one request's, like an agent's (NEVER_ABORTED). */
  private readonly openForLease = (lease: LeaseRecord, target: URL): Promise<Socket> => this.open(lease, target, NEVER_ABORTED);

  /** Statically checks then dials the destination, recording any refusal on the lease. */
  private async open(lease: LeaseRecord, target: URL, signal: AbortSignal): Promise<Socket> {
    const host = bareHost(target);
    const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
    // A reusable lease may serve the next request before a slow dial of the previous one ends: what
    // that dial meets is recorded only while its own use is current.
    const use = lease.use;
    const scoped = {
      upstreamProxy: lease.upstreamProxy,
      recordStep: (step: TimelineStep) => {
        if (lease.isCurrent(use)) lease.recordStep(step);
      },
      track: (socket: Socket) => lease.track(socket),
    };
    try {
      checkTargetUrl(target.href, this.policy);
      return await dial({ host, port, policy: this.policy, lookup: this.lookup, lease: scoped, signal });
    } catch (caught) {
      const error = asServiceError(caught);
      if (!lease.isCurrent(use)) throw error;
      if (!signal.aborted) lease.recordFailure(error);
      if (error.code === 'ERR::SECURITY::SSRF_BLOCKED') lease.recordBlocked({ host, port, reason: error.detail ?? 'blocked' });
      throw error;
    }
  }

  private async handleTunnel(req: http.IncomingMessage, client: Duplex, head: Buffer, kind: 'connect' | 'upgrade'): Promise<void> {
    client.on('error', () => client.destroy());
    const lease = this.authenticate(req);
    if (!lease) {
      writeRawRefusal(client, 407, 'Proxy Authentication Required', ['Proxy-Authenticate: Basic realm="trawler-egress"']);
      return;
    }
    const use = lease.use;
    const abort = new AbortController();
    client.once('close', () => abort.abort());
    let target: URL;
    try {
      target = new URL(kind === 'connect' ? `https://${req.url ?? ''}` : (req.url ?? ''));
      if (kind === 'connect' && target.port === '') target = new URL(`http://${req.url ?? ''}`);
    } catch {
      writeRawRefusal(client, 400, 'Bad Request');
      return;
    }
    let upstream: Socket;
    try {
      upstream = await this.open(lease, target, abort.signal);
    } catch (caught) {
      const error = asServiceError(caught);
      writeRawRefusal(client, refusalStatus(error), 'Egress Refused', [`${EGRESS_ERROR_HEADER}: ${error.code}`]);
      return;
    }
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    this.watchReset(lease, use, upstream, target.host);
    if (kind === 'connect') {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    } else {
      const lines = [`${req.method ?? 'GET'} ${target.pathname}${target.search} HTTP/1.1`];
      const raw = req.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) {
        if (!/^proxy-/i.test(raw[i])) lines.push(`${raw[i]}: ${raw[i + 1]}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    }
    if (head.length > 0) upstream.write(head);
    pipeBoth(client, upstream);
  }

  private async handleRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const lease = this.authenticate(req);
    if (!lease) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="trawler-egress"', 'content-length': '0' }).end();
      return;
    }
    const refuse = (error: ServiceError): void => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(refusalStatus(error), { [EGRESS_ERROR_HEADER]: error.code, 'content-length': '0', connection: 'close' }).end();
    };
    if (!(req.url ?? '').startsWith('http://')) {
      res.writeHead(400, { 'content-length': '0' }).end();
      return;
    }
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    const target = new URL(req.url ?? '');
    let connection: Pick<http.RequestOptions, 'agent' | 'createConnection' | 'host' | 'port'>;
    if (lease.reusable) {
      connection = { agent: this.agentOf(lease), host: bareHost(target), port: Number(target.port) || 80 };
    } else {
      let socket: Socket;
      try {
        socket = await this.open(lease, target, abort.signal);
      } catch (caught) {
        refuse(asServiceError(caught));
        return;
      }
      connection = { createConnection: () => socket };
    }
    const upstreamRequest = http.request({
      ...connection,
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers: filterRawHeaders(req.rawHeaders),
    });
    upstreamRequest.on('response', (upstreamResponse) => {
      res.writeHead(upstreamResponse.statusCode ?? 502, filterRawHeaders(upstreamResponse.rawHeaders));
      upstreamResponse.pipe(res);
      upstreamResponse.on('error', () => res.destroy());
    });
    upstreamRequest.on('error', (error: NodeJS.ErrnoException) => {
      if (abort.signal.aborted) return;
      // A refused dial of a kept-alive agent: open() has recorded it on the lease already.
      if (error instanceof ServiceError) return refuse(error);
      const reset = new ServiceError('ERR::UPSTREAM::CONNECTION_RESET', `${target.host} closed the connection (${error.code ?? error.message})`);
      lease.recordFailure(reset);
      refuse(reset);
    });
    res.once('close', () => {
      if (!res.writableFinished) upstreamRequest.destroy();
    });
    req.pipe(upstreamRequest);
  }
}
