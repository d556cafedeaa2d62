import { ServiceError } from '../../errors/index.js';
import type { EngineName } from '../../protocol/index.js';
import { StoredContextSchema, type SessionContext } from './context.js';

export const SESSION_STATUSES = ['active', 'released', 'expired'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** The session's proxy: exit intent, never an endpoint. `none` means no managed pool is asked for. */
export const PROXY_TIERS = ['none', 'residential'] as const;
export type ProxyTier = (typeof PROXY_TIERS)[number];

export interface SessionProxyIntent {
  tier: ProxyTier;
  country: string | null;
  region_pool: string | null;
}

export interface DomainScore {
  score: number;
  good: number;
  bad: number;
  last_updated: number;
  retired: boolean;
}

export type RetiredReason = 'expired' | 'usage_exhausted' | 'explicit';

/** One row of the `sessions` table as the store returns it. `context` is raw jsonb: read it with `readContext`. */
export interface SessionRecord {
  id: string;
  organization_id: string;
  project_id: string;
  engine: EngineName;
  sticky_key: string;
  proxy: SessionProxyIntent;
  ttl_seconds: number;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date;
  hard_expires_at: Date | null;
  released_at: Date | null;
  usage_count: number;
  context: unknown;
  fingerprint: Record<string, unknown> | null;
  domain_scores: Record<string, DomainScore>;
  retired: RetiredReason | null;
  lease_holder: string | null;
  lease_expires_at: Date | null;
}

/** Derived from the clock, never stored: released wins over expired, since release is final. */
export function sessionStatus(session: SessionRecord, now: Date = new Date()): SessionStatus {
  if (session.released_at !== null) return 'released';
  if (session.expires_at.getTime() <= now.getTime()) return 'expired';
  if (session.hard_expires_at !== null && session.hard_expires_at.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** The lease, when a render holds it right now (an expired lease is free). */
export function activeLease(session: SessionRecord, now: Date = new Date()): { holder: string; expires_at: Date } | null {
  if (session.lease_holder === null || session.lease_expires_at === null) return null;
  if (session.lease_expires_at.getTime() <= now.getTime()) return null;
  return { holder: session.lease_holder, expires_at: session.lease_expires_at };
}

/** The stored context, or 500 STATE_CORRUPT when it cannot be read (not recoverable). */
export function readContext(session: SessionRecord): SessionContext {
  const parsed = StoredContextSchema.safeParse(session.context);
  if (!parsed.success) {
    throw new ServiceError('ERR::SESSION::STATE_CORRUPT', `The stored context of session ${session.id} cannot be read`);
  }
  const { schema_version: _version, ...context } = parsed.data;
  return context;
}

/** 410 for a session that cannot be used any more, nothing for an active one. */
export function assertActive(session: SessionRecord, now: Date = new Date()): void {
  const status = sessionStatus(session, now);
  if (status === 'released') {
    throw new ServiceError('ERR::SESSION::RELEASED', `Session ${session.id} was released at ${session.released_at?.toISOString()}`);
  }
  if (status === 'expired') {
    throw new ServiceError('ERR::SESSION::EXPIRED', `Session ${session.id} expired at ${session.expires_at.toISOString()}`);
  }
}

export function busyError(session: SessionRecord, now: Date = new Date()): ServiceError {
  const lease = activeLease(session, now);
  const leftSeconds = lease ? Math.ceil((lease.expires_at.getTime() - now.getTime()) / 1000) : 1;
  // The lease expiry is an upper bound; a render usually ends far sooner, so the hint stays short.
  return new ServiceError('ERR::SESSION::BUSY', `Session ${session.id} is in use by another request`, {
    retryAfterSeconds: Math.max(1, Math.min(leftSeconds, 5)),
  });
}

export function notFound(id: string): ServiceError {
  return new ServiceError('ERR::SESSION::NOT_FOUND', `No session ${id}`);
}
