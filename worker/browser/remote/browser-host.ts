import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import type { Bus, BusSubscription, Decoded } from '../../../lib/bus/bus.js';
import { ServiceError } from '../../../lib/errors/index.js';
import { newId } from '../../../lib/ids.js';
import type { Logger } from '../../../lib/log.js';
import { BrowserOpenSchema, browserQueueGroup, browserSubject, browserWorkerSubject, type BrowserEngineName, type BrowserLease, type BrowserOpen } from '../../../lib/protocol/index.js';
import type { EgressGuard } from '../../egress/guard.js';
import { startVirtualDisplay, type VirtualDisplay } from '../xvfb.js';
import { launchCdpBrowser, type CdpBrowser } from './cdp-browser.js';
import { RemoteSession, type SessionEnd } from './remote-session.js';

export interface BrowserHostOptions {
  engine: BrowserEngineName;
  executablePath: string;
  guard: EgressGuard;
  bus: Bus;
  logger: Logger;
  /** Connections relayed at once (a lease waiting for its gateway counts). */
  capacity: number;
  /** Where the relay port listens, and the host name gateways reach it by. */
  listenHost: string;
  port: number;
  advertiseHost: string;
}

/** How long a lease waits for its gateway to connect before its context is disposed. */
const TICKET_MS = 15_000;
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

interface Leased {
  session: RemoteSession;
  /** A headful connection's browser of its own, killed with the connection. */
  own: CdpBrowser | null;
}

/**
 * A worker's remote browsers (docs/remote-browser.md "Transport"): answers leases on the bus, each a
 * context opened on a warm shared browser and a one-time ticket, then relays the gateway that
 * connects to `ws://advertiseHost:port/relay/<ticket>` through that context's RemoteSession.
 */
export class RemoteBrowserHost {
  private readonly server = http.createServer((_req, res) => res.writeHead(404).end());
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_MESSAGE_BYTES });
  private readonly tickets = new Map<string, Leased & { timer: NodeJS.Timeout }>();
  private readonly live = new Map<RemoteSession, Promise<SessionEnd>>();
  private shared: Promise<CdpBrowser> | null = null;
  private display: Promise<VirtualDisplay> | null = null;
  private leases: BusSubscription[] = [];
  private inUse = 0;
  private draining = false;
  private readonly marker = `trawler-remote-${process.pid}-${newId().slice(-6)}`;

  constructor(
    private readonly options: BrowserHostOptions,
    readonly workerId: string,
  ) {
    this.server.on('upgrade', (req, socket, head) => this.claim(req, socket as Socket, head));
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.listenHost, () => resolve());
    });
    const { engine, bus } = this.options;
    const open = (message: Decoded<BrowserOpen>) => this.open(message);
    this.leases = [
      // One member of the engine's queue group takes each lease...
      bus.serveJson(browserSubject(engine), browserQueueGroup(engine), BrowserOpenSchema, open, this.workerId),
      // ...and a gateway whose pick was full asks another worker by its own subject (a group of one).
      bus.serveJson(browserWorkerSubject(engine, this.workerId), `${browserQueueGroup(engine)}-${this.workerId}`, BrowserOpenSchema, open, this.workerId),
    ];
  }

  /** What the worker's heartbeat shows (GET /v1/workers). */
  sessions(): { capacity: number; in_use: number } {
    return { capacity: this.options.capacity, in_use: this.inUse };
  }

  /** Ends every connection (close code 1001), disposes unclaimed leases, stops the browsers. */
  async stop(): Promise<void> {
    this.draining = true;
    await Promise.all(this.leases.map((lease) => lease.drain()));
    for (const session of this.live.keys()) session.end('shutdown');
    await Promise.allSettled(this.live.values());
    await Promise.allSettled([...this.tickets.keys()].map((ticket) => this.expire(ticket)));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    const shared = await this.shared?.catch(() => null);
    await shared?.kill();
    await (await this.display?.catch(() => null))?.close();
  }

  private get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  private async open(message: Decoded<BrowserOpen>): Promise<BrowserLease> {
    if (!message.ok) return refusal(new ServiceError('ERR::INTERNAL::ERROR', 'Malformed remote-browser lease on the bus'));
    if (this.draining || this.inUse >= this.options.capacity) {
      const busy = new ServiceError('ERR::INTERNAL::UNAVAILABLE', 'Every remote-browser slot of the worker is busy; retry', { retryAfterSeconds: 1 });
      // A draining or full worker says so: the gateway asks another member of the pool.
      return { ok: false, error: busy.toWire(), worker_id: this.workerId, busy: true };
    }
    const open = message.value;
    this.inUse += 1;
    let own: CdpBrowser | null = null;
    try {
      if (!open.headless) own = await launchCdpBrowser(this.options.executablePath, this.marker, { display: (await this.virtualDisplay()).display });
      const browser = own ?? (await this.sharedBrowser());
      const session = await RemoteSession.open(browser.endpoint, this.options.guard, {
        requestId: open.request_id,
        ttlMs: open.ttl_ms,
        idleMs: open.idle_ms,
        upstreamProxy: open.upstream_proxy,
        trustedUpstream: open.upstream_trusted,
        cookies: open.session?.cookies,
        localStorage: open.session?.local_storage,
        returnCookies: open.session !== null,
      });
      const ticket = randomBytes(24).toString('base64url');
      this.tickets.set(ticket, { session, own, timer: setTimeout(() => void this.expire(ticket), TICKET_MS) });
      return { ok: true, worker_id: this.workerId, relay_url: `ws://${hostForUrl(this.options.advertiseHost)}:${this.port}/relay/${ticket}` };
    } catch (error) {
      this.inUse -= 1;
      await own?.kill();
      this.options.logger.warn({ err: error, request_id: open.request_id }, 'remote browser could not open a context');
      return refusal(new ServiceError('ERR::INTERNAL::UNAVAILABLE', 'The remote browser could not start; retry', { retryAfterSeconds: 1, cause: error }));
    }
  }

  private claim(req: http.IncomingMessage, socket: Socket, head: Buffer): void {
    const ticket = /^\/relay\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '')?.[1];
    const leased = ticket === undefined ? undefined : this.tickets.get(ticket);
    if (!leased || ticket === undefined) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.tickets.delete(ticket);
    clearTimeout(leased.timer);
    this.wss.handleUpgrade(req, socket, head, (gateway) => {
      const ended = leased.session.attach(gateway).then(async (end) => {
        this.live.delete(leased.session);
        this.inUse -= 1;
        await leased.own?.kill();
        this.options.logger.info({ engine: this.options.engine, reason: end.reason, ms: end.durationMs, cdp_refusals: end.refusals }, 'remote browser connection ended');
        return end;
      });
      this.live.set(leased.session, ended);
    });
  }

  private async expire(ticket: string): Promise<void> {
    const leased = this.tickets.get(ticket);
    if (!leased) return;
    this.tickets.delete(ticket);
    clearTimeout(leased.timer);
    this.inUse -= 1;
    await leased.session.discard();
    await leased.own?.kill();
  }

  /** The warm browser every headless connection shares; launched on first use, again when it died. */
  private async sharedBrowser(): Promise<CdpBrowser> {
    const seen = this.shared;
    const current = await seen?.catch(() => null);
    if (current && !current.isDead()) return current;
    // Another lease may have started the relaunch meanwhile.
    if (this.shared !== seen && this.shared !== null) return this.sharedBrowser();
    const launching = launchCdpBrowser(this.options.executablePath, this.marker);
    this.shared = launching;
    launching.catch(() => {
      if (this.shared === launching) this.shared = null;
    });
    return launching;
  }

  private virtualDisplay(): Promise<VirtualDisplay> {
    this.display ??= startVirtualDisplay().catch((error: unknown) => {
      this.display = null;
      throw error;
    });
    return this.display;
  }
}

function refusal(error: ServiceError): BrowserLease {
  return { ok: false, error: error.toWire() };
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
