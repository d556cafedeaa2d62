import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import { ServiceError, type TimelineStep } from '../../lib/errors/index.js';

export interface BlockedDestination {
  host: string;
  port: number;
  reason: string;
}

/** What one engine request holds while it sends traffic through the guard. */
export interface EgressLease {
  /** `http://user:pass@127.0.0.1:port`, for clients that take a proxy URL (impit, undici). */
  proxyUrl: string;
  /**
   * `socks5h://user:pass@127.0.0.1:port` for direct traffic (the guard resolves the name), null with
   * a caller proxy, which goes through the HTTP listener (docs/ssrf.md, "SOCKS5 listener").
   */
  socksUrl: string | null;
  /** Playwright's per-context proxy option shape. */
  server: string;
  username: string;
  password: string;
  /**
   * Kept by the guard for later requests once released (docs/ssrf.md, "Connection reuse"): a client
   * may keep its connections for these credentials; they are refused while no request holds them.
   */
  readonly reusable: boolean;
  /** The first failure the guard met for this lease, or null. */
  failure(): ServiceError | null;
  blocked(): BlockedDestination[];
  /** Bytes received from (in) and sent to (out) targets or the caller's proxy. */
  bytes(): { in: number; out: number };
  /** Connection stages the guard saw (dns, proxy, connect), in order. */
  timeline(): TimelineStep[];
  /**
   * A connection to the target opened by the guard's checked dial, for a client that speaks to the
   * target in this process instead of through a listener (docs/ssrf.md, "In-process connections").
   * Refused (SSRF_BLOCKED, …) and recorded on the lease like a listener's dial; refused while released.
   */
  open(target: URL): Promise<Socket>;
  release(): void;
}

/** The guard's checked dial for a lease (stages, failures and bytes recorded on it). */
export type LeaseOpener = (lease: LeaseRecord, target: URL) => Promise<Socket>;

/** The guard's side of a lease: credentials, the caller's proxy and what happened. */
export class LeaseRecord implements EgressLease {
  readonly username: string;
  readonly password: string;
  readonly proxyUrl: string;
  readonly socksUrl: string | null;
  readonly server: string;
  private firstFailure: ServiceError | null = null;
  private readonly blockedList: BlockedDestination[] = [];
  private readonly steps: TimelineStep[] = [];
  private readonly sockets = new Set<Socket>();
  private closedIn = 0;
  private closedOut = 0;
  /** Bytes the sockets had carried when this use began (a reusable lease's sockets outlive a use). */
  private baseline = { in: 0, out: 0 };
  /** Generation of the current use; 0 for a one-request lease. */
  use = 0;
  /** False between uses of a reusable lease: the guard refuses its credentials then. */
  active = true;

  constructor(
    public requestId: string,
    readonly upstreamProxy: URL | null,
    ports: { http: number; socks: number },
    private readonly onRelease: (lease: LeaseRecord) => void,
    private readonly opener: LeaseOpener,
    readonly reusable = false,
    /** The upstream is a managed pool exit: the deployment's own address, reached even when private. */
    readonly trustedUpstream = false,
  ) {
    this.username = `lease-${randomBytes(6).toString('hex')}`;
    this.password = randomBytes(18).toString('base64url');
    this.server = `http://127.0.0.1:${ports.http}`;
    this.proxyUrl = `http://${this.username}:${this.password}@127.0.0.1:${ports.http}`;
    this.socksUrl = upstreamProxy === null ? `socks5h://${this.username}:${this.password}@127.0.0.1:${ports.socks}` : null;
  }

  passwordMatches(candidate: string): boolean {
    const expected = Buffer.from(this.password);
    const given = Buffer.from(candidate);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /** Starts the next use of a reusable lease: nothing of the previous use is reported to this one. */
  checkOut(requestId: string): this {
    this.requestId = requestId;
    this.use += 1;
    this.active = true;
    this.firstFailure = null;
    this.blockedList.length = 0;
    this.steps.length = 0;
    this.baseline = { in: 0, out: 0 };
    this.baseline = this.bytes();
    return this;
  }

  /** True while the use that began as `use` is still the lease's current one. */
  isCurrent(use: number): boolean {
    return this.active && this.use === use;
  }

  recordFailure(error: ServiceError): void {
    this.firstFailure ??= error;
  }

  recordBlocked(destination: BlockedDestination): void {
    this.blockedList.push(destination);
  }

  recordStep(step: TimelineStep): void {
    this.steps.push(step);
  }

  /** Counts the socket's bytes towards this lease, live and after it closes. */
  track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => {
      this.sockets.delete(socket);
      this.closedIn += socket.bytesRead;
      this.closedOut += socket.bytesWritten;
    });
  }

  failure(): ServiceError | null {
    return this.firstFailure;
  }

  blocked(): BlockedDestination[] {
    return [...this.blockedList];
  }

  bytes(): { in: number; out: number } {
    let inBytes = this.closedIn;
    let outBytes = this.closedOut;
    for (const socket of this.sockets) {
      inBytes += socket.bytesRead;
      outBytes += socket.bytesWritten;
    }
    return { in: inBytes - this.baseline.in, out: outBytes - this.baseline.out };
  }

  timeline(): TimelineStep[] {
    return [...this.steps];
  }

  open(target: URL): Promise<Socket> {
    if (!this.active) return Promise.reject(new ServiceError('ERR::INTERNAL::ERROR', 'a released egress lease was asked for a connection'));
    return this.opener(this, target);
  }

  release(): void {
    if (!this.active) return;
    if (this.reusable) this.active = false;
    this.onRelease(this);
  }
}
