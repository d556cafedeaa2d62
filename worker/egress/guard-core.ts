import type http from 'node:http';
import type { Socket } from 'node:net';
import type { LeaseRecord } from './lease.js';

/** What the listeners need of the guard: the lease a client's credentials name, and the checked dial. */
export interface GuardCore {
  /** The lease named by a request's Proxy-Authorization, or null. */
  authenticate(req: http.IncomingMessage): LeaseRecord | null;
  /** Statically checks then dials the destination, recording any refusal on the lease. */
  open(lease: LeaseRecord, target: URL, signal: AbortSignal): Promise<Socket>;
  /** The reusable lease's own keep-alive agent. */
  agentOf(lease: LeaseRecord): http.Agent;
}
