import type http from 'node:http';
import { checkProxyUrl, type EgressPolicy } from '../../lib/egress/policy.js';
import { LeaseRecord, type EgressLease, type LeaseOpener } from './lease.js';
import { upstreamAgent } from './upstream-agent.js';

/** Released reusable leases kept for later requests; about the fetch engine's capacity. */
const MAX_IDLE_LEASES = 32;

export interface LeaseOptions {
  requestId: string;
  upstreamProxy: string | null;
  /** The upstream is a managed pool exit: the deployment's own, not checked as a caller's proxy is. */
  trustedUpstream?: boolean;
  /** Direct traffic only: a kept lease whose connections outlive the request (docs/ssrf.md, "Connection reuse"). */
  reusable?: boolean;
}

/**
 * The guard's leases: the credentials each request holds, the reusable ones kept idle between
 * requests (bounded), and their keep-alive agents (sockets never cross leases).
 */
export class LeasePool {
  private readonly leases = new Map<string, LeaseRecord>();
  /** Reusable leases no request holds now, most recently used last. */
  private readonly idle: LeaseRecord[] = [];
  private readonly agents = new Map<LeaseRecord, http.Agent>();

  constructor(
    private readonly policy: EgressPolicy,
    private readonly ports: () => { http: number; socks: number },
    /** The guard's checked dial for a connection that is not one request's (kept alive). */
    private readonly openKept: LeaseOpener,
  ) {}

  /** Throws SSRF_BLOCKED or INVALID_PARAMETER for a bad caller proxy. */
  lease(options: LeaseOptions): EgressLease {
    if (options.reusable && options.upstreamProxy === null) return this.reusableLease(options.requestId);
    const trusted = options.trustedUpstream === true;
    const upstream = options.upstreamProxy === null ? null : trusted ? new URL(options.upstreamProxy) : checkProxyUrl(options.upstreamProxy, this.policy);
    const forget = (done: LeaseRecord): void => void this.leases.delete(done.username);
    const record = new LeaseRecord(options.requestId, upstream, this.ports(), forget, this.openKept, false, trusted);
    this.leases.set(record.username, record);
    return record;
  }

  /** The lease a request holds now under these credentials, or null. */
  leaseFor(username: string, password: string): LeaseRecord | null {
    const lease = this.leases.get(username);
    return lease && lease.active && lease.passwordMatches(password) ? lease : null;
  }

  /** The lease's own keep-alive agent; its new connections are dialled (and checked) by openKept. */
  agentOf(lease: LeaseRecord): http.Agent {
    let agent = this.agents.get(lease);
    if (!agent) {
      agent = upstreamAgent((target) => this.openKept(lease, target));
      this.agents.set(lease, agent);
    }
    return agent;
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
  }

  private reusableLease(requestId: string): LeaseRecord {
    const kept = this.idle.pop();
    if (kept) return kept.checkOut(requestId);
    const record = new LeaseRecord(requestId, null, this.ports(), (done) => this.keepIdle(done), this.openKept, true);
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
}
