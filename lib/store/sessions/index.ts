import { ServiceError } from '../../errors/index.js';
import type { EngineName } from '../../protocol/index.js';
import type { Db, Queryable } from '../db.js';
import { storableJson } from '../../validation/storable.js';
import { storedContext, type SessionContext } from './context.js';
import {
  activeLease,
  assertActive,
  busyError,
  notFound,
  sessionStatus,
  type DomainScore,
  type SessionProxyIntent,
  type SessionRecord,
  type SessionStatus,
} from './record.js';

export * from './context.js';
export * from './record.js';

/** docs/api-reference.md "Limits": live (not released, not expired) sessions per organization. */
export const MAX_LIVE_SESSIONS = 100;
export const SESSIONS_EXCEEDED_RETRY_AFTER_SECONDS = 30;

export interface NewSession {
  id: string;
  organizationId: string;
  projectId: string;
  engine: EngineName;
  stickyKey: string;
  proxy: SessionProxyIntent;
  ttlSeconds: number;
  /** The organization's maximum TTL: fixes `hard_expires_at`. */
  maxTtlSeconds: number;
  context: SessionContext;
  fingerprint: Record<string, unknown> | null;
  domainScores: Record<string, DomainScore>;
}

const COLUMNS = `id, organization_id, project_id, engine, sticky_key, proxy, ttl_seconds, created_at, last_used_at,
  expires_at, hard_expires_at, released_at, usage_count, context, fingerprint, domain_scores, retired, lease_holder,
  lease_expires_at`;

/**
 * Creates an active session. The live-session limit and sticky-key uniqueness both depend on the clock,
 * so they are checked under a per-organization transaction lock: two creates can never both pass.
 */
export async function createSession(db: Db, input: NewSession, now: Date = new Date()): Promise<SessionRecord> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`sessions:${input.organizationId}`]);
    const live = await tx.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM sessions WHERE organization_id = $1 AND released_at IS NULL AND expires_at > $2`,
      [input.organizationId, now],
    );
    if ((live.rows[0]?.count ?? 0) >= MAX_LIVE_SESSIONS) {
      throw new ServiceError('ERR::LIMIT::SESSIONS_EXCEEDED', `The organization holds ${MAX_LIVE_SESSIONS} live sessions; release one first`, {
        retryAfterSeconds: SESSIONS_EXCEEDED_RETRY_AFTER_SECONDS,
      });
    }
    if (input.stickyKey !== '') await assertStickyKeyFree(tx, input.projectId, input.stickyKey, now);
    const hardExpiresAt = new Date(now.getTime() + input.maxTtlSeconds * 1000);
    const expiresAt = new Date(Math.min(now.getTime() + input.ttlSeconds * 1000, hardExpiresAt.getTime()));
    const result = await tx.query<SessionRecord>(
      `INSERT INTO sessions (id, organization_id, project_id, engine, sticky_key, proxy, ttl_seconds, created_at,
         expires_at, hard_expires_at, context, fingerprint, domain_scores)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11::jsonb, $12::jsonb, $13::jsonb)
       RETURNING ${COLUMNS}`,
      [
        input.id,
        input.organizationId,
        input.projectId,
        input.engine,
        input.stickyKey,
        JSON.stringify(input.proxy),
        input.ttlSeconds,
        now,
        expiresAt,
        hardExpiresAt,
        JSON.stringify(storedContext(input.context)),
        input.fingerprint === null ? null : JSON.stringify(input.fingerprint),
        JSON.stringify(input.domainScores),
      ],
    );
    return result.rows[0];
  });
}

async function assertStickyKeyFree(tx: Queryable, projectId: string, stickyKey: string, now: Date): Promise<void> {
  const taken = await tx.query<{ id: string }>(
    `SELECT id FROM sessions WHERE project_id = $1 AND lower(sticky_key) = lower($2) AND released_at IS NULL AND expires_at > $3 LIMIT 1`,
    [projectId, stickyKey, now],
  );
  if (taken.rows.length > 0) {
    throw new ServiceError('ERR::REQUEST::CONFLICT', `sticky_key "${stickyKey}" is already used by an active session of this project`);
  }
}

/** The session with this id in this organization, or null (also for another organization's id). */
export async function findSession(db: Queryable, id: string, organizationId: string): Promise<SessionRecord | null> {
  const result = await db.query<SessionRecord>(`SELECT ${COLUMNS} FROM sessions WHERE id = $1 AND organization_id = $2`, [
    id,
    organizationId,
  ]);
  return result.rows[0] ?? null;
}

export interface SessionListQuery {
  organizationId: string;
  projectId: string;
  status?: SessionStatus;
  /** Keyset cursor: sessions with an id strictly below this one (newest first). */
  beforeId?: string;
  limit: number;
}

export async function listSessions(db: Queryable, query: SessionListQuery, now: Date = new Date()) {
  const params: unknown[] = [query.organizationId, query.projectId];
  const param = (value: unknown): string => `$${params.push(value)}`;
  const conditions = ['organization_id = $1', 'project_id = $2'];
  if (query.beforeId !== undefined) conditions.push(`id < ${param(query.beforeId)}`);
  if (query.status === 'released') conditions.push('released_at IS NOT NULL');
  if (query.status === 'active') conditions.push(`released_at IS NULL AND expires_at > ${param(now)}`);
  if (query.status === 'expired') conditions.push(`released_at IS NULL AND expires_at <= ${param(now)}`);
  const result = await db.query<SessionRecord>(
    `SELECT ${COLUMNS} FROM sessions WHERE ${conditions.join(' AND ')} ORDER BY id DESC LIMIT ${param(query.limit + 1)}`,
    params,
  );
  return { sessions: result.rows.slice(0, query.limit), hasMore: result.rows.length > query.limit };
}

/**
 * Releases a session: context and lease are dropped, the row stays readable. Releasing a released
 * session changes nothing. A held lease refuses with 409 BUSY unless `force`; with `force` the
 * running scrape loses its lease and fails when it tries to save (see `recordUse`).
 */
export async function releaseSession(db: Db, id: string, organizationId: string, force: boolean, now: Date = new Date()) {
  return db.transaction(async (tx) => {
    const session = await lockSession(tx, id, organizationId);
    if (session.released_at !== null) return session;
    if (!force && sessionStatus(session, now) === 'active' && activeLease(session, now)) throw busyError(session, now);
    const result = await tx.query<SessionRecord>(
      `UPDATE sessions SET released_at = $2, context = NULL, lease_holder = NULL, lease_expires_at = NULL
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, now],
    );
    return result.rows[0];
  });
}

/** Deletes the row for good (later reads give 404). Same lease rule as release. */
export async function deleteSession(db: Db, id: string, organizationId: string, force: boolean, now: Date = new Date()): Promise<void> {
  await db.transaction(async (tx) => {
    const session = await lockSession(tx, id, organizationId);
    if (!force && sessionStatus(session, now) === 'active' && activeLease(session, now)) throw busyError(session, now);
    await tx.query('DELETE FROM sessions WHERE id = $1', [id]);
  });
}

async function lockSession(tx: Queryable, id: string, organizationId: string): Promise<SessionRecord> {
  const result = await tx.query<SessionRecord>(
    `SELECT ${COLUMNS} FROM sessions WHERE id = $1 AND organization_id = $2 FOR UPDATE`,
    [id, organizationId],
  );
  const session = result.rows[0];
  if (!session) throw notFound(id);
  return session;
}

/**
 * Takes the single-writer lease for `holder` until `leaseMs` from now. Throws 404, 410 (released or
 * expired, however recently) or 409 BUSY; returns the session as it stood when the lease was taken.
 */
export async function acquireLease(db: Db, id: string, organizationId: string, holder: string, leaseMs: number, now: Date = new Date()) {
  const result = await db.query<SessionRecord>(
    `UPDATE sessions SET lease_holder = $3, lease_expires_at = $5
     WHERE id = $1 AND organization_id = $2 AND released_at IS NULL AND expires_at > $4
       AND (hard_expires_at IS NULL OR hard_expires_at > $4)
       AND (lease_holder IS NULL OR lease_expires_at <= $4)
     RETURNING ${COLUMNS}`,
    [id, organizationId, holder, now, new Date(now.getTime() + leaseMs)],
  );
  if (result.rows[0]) return result.rows[0];
  // Released or expired since the caller looked it up: the same 410 as the lookup would give.
  const session = await findSession(db, id, organizationId);
  if (!session) throw notFound(id);
  assertActive(session, now);
  throw busyError(session, now);
}

/**
 * A successful scrape: saves the context, counts the use and slides `expires_at` to use time + ttl,
 * never earlier than before nor past `hard_expires_at`. Null when `holder` no longer holds the lease
 * (the session was released with force, or the lease ran out and another scrape took it).
 */
export async function recordUse(db: Queryable, id: string, holder: string, context: SessionContext, now: Date = new Date()) {
  const result = await db.query<SessionRecord>(
    `UPDATE sessions SET
       context = $3::jsonb,
       usage_count = usage_count + 1,
       last_used_at = $4::timestamptz,
       expires_at = LEAST(GREATEST(expires_at, $4::timestamptz + make_interval(secs => ttl_seconds)), COALESCE(hard_expires_at, 'infinity'::timestamptz)),
       lease_holder = NULL,
       lease_expires_at = NULL
     WHERE id = $1 AND lease_holder = $2 AND released_at IS NULL AND expires_at > $4
     RETURNING ${COLUMNS}`,
    // A page's storage may hold NUL or lone surrogates, which jsonb refuses: stored as U+FFFD.
    [id, holder, storableJson(storedContext(context)), now],
  );
  return result.rows[0] ?? null;
}

/** Gives the lease back without counting a use (a failed scrape). A lease someone else holds is left alone. */
export async function releaseLease(db: Queryable, id: string, holder: string): Promise<void> {
  await db.query('UPDATE sessions SET lease_holder = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_holder = $2', [id, holder]);
}

/** docs/sessions.md: the context of an expired session is purged. Returns how many contexts were dropped. */
export async function purgeExpiredContexts(db: Queryable, now: Date = new Date()): Promise<number> {
  const result = await db.query('UPDATE sessions SET context = NULL WHERE context IS NOT NULL AND expires_at <= $1', [now]);
  return result.rowCount;
}
