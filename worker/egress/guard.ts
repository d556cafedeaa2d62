import { setMaxListeners } from 'node:events';
import http from 'node:http';
import type { Server, Socket } from 'node:net';
import type { TimelineStep } from '../../lib/errors/index.js';
import { bareHost, checkTargetUrl, type EgressPolicy, type LookupFn } from '../../lib/egress/policy.js';
import type { GuardCore } from './guard-core.js';
import { handleTunnel } from './connect-tunnel.js';
import { dial } from './dial.js';
import { handleForward } from './forward.js';
import type { EgressLease, LeaseRecord } from './lease.js';
import { LeasePool, type LeaseOptions } from './lease-pool.js';
import { asServiceError } from './relay.js';
import { handleSocksConnect } from './socks-connect.js';
import { startSocksServer } from './socks-server.js';

export type { EgressLease, BlockedDestination } from './lease.js';
export { EGRESS_ERROR_HEADER } from './relay.js';

/**
 * A kept-alive dial is not one request's: the connect timeout bounds it, not a caller's abort. Every
 * such dial listens on this one signal while it connects, so a busy worker has many listeners at once.
 */
const NEVER_ABORTED = new AbortController().signal;
setMaxListeners(0, NEVER_ABORTED);

/**
 * The worker's egress guard: a forward proxy on 127.0.0.1 that every engine sends traffic through.
 * It resolves each destination itself and checks every address against the policy at connect time.
 * Its parts: the lease pool (lease-pool.ts), the HTTP listener's CONNECT/Upgrade tunnels
 * (connect-tunnel.ts) and plain forwarding (forward.ts), the SOCKS5 listener (socks-connect.ts), and
 * the one checked dial they all go through (open below, dial.ts).
 */
export class EgressGuard implements GuardCore {
  private readonly pool: LeasePool;
  private readonly clients = new Set<Socket>();
  private readonly server = http.createServer();
  /** The SOCKS5 listener for direct traffic; started with the HTTP one. */
  private socks: Server | null = null;
  private ports = { http: 0, socks: 0 };

  private constructor(
    private readonly policy: EgressPolicy,
    private readonly lookup: LookupFn | undefined,
  ) {
    this.pool = new LeasePool(policy, () => this.ports, (lease, target) => this.open(lease, target, NEVER_ABORTED));
    const server = this.server;
    server.on('connection', (socket: Socket) => this.trackClient(socket));
    server.on('request', (req, res) => void handleForward(this, req, res));
    server.on('connect', (req, socket, head) => void handleTunnel(this, req, socket, head, 'connect'));
    server.on('upgrade', (req, socket, head) => void handleTunnel(this, req, socket, head, 'upgrade'));
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
      authenticate: (username, password) => guard.pool.leaseFor(username, password),
      connect: (lease, host, port, client, reply) => handleSocksConnect(guard, lease as LeaseRecord, host, port, client, reply),
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

  /**
   * Credentials for one request; throws SSRF_BLOCKED or INVALID_PARAMETER for a bad caller proxy.
   * `reusable` (direct traffic only) hands out a kept lease whose connections outlive the request.
   */
  lease(options: LeaseOptions): EgressLease {
    return this.pool.lease(options);
  }

  async close(): Promise<void> {
    this.pool.close();
    for (const socket of this.clients) socket.destroy();
    await Promise.all([
      new Promise<void>((resolve) => this.server.close(() => resolve())),
      new Promise<void>((resolve) => (this.socks ? this.socks.close(() => resolve()) : resolve())),
    ]);
  }

  authenticate(req: http.IncomingMessage): LeaseRecord | null {
    const header = req.headers['proxy-authorization'];
    const match = typeof header === 'string' ? /^Basic\s+(\S+)$/i.exec(header) : null;
    if (!match) return null;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1) return null;
    return this.pool.leaseFor(decoded.slice(0, colon), decoded.slice(colon + 1));
  }

  agentOf(lease: LeaseRecord): http.Agent {
    return this.pool.agentOf(lease);
  }

  /** Statically checks then dials the destination, recording any refusal on the lease. */
  async open(lease: LeaseRecord, target: URL, signal: AbortSignal): Promise<Socket> {
    const host = bareHost(target);
    const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
    // A reusable lease may serve the next request before a slow dial of the previous one ends: what
    // that dial meets is recorded only while its own use is current.
    const use = lease.use;
    const scoped = {
      upstreamProxy: lease.upstreamProxy,
      trustedUpstream: lease.trustedUpstream,
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

  private trackClient(socket: Socket): void {
    this.clients.add(socket);
    socket.once('close', () => this.clients.delete(socket));
  }
}
