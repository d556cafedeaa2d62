import { holdClauses, type HoldRequest } from './credits.js';
import type { Queryable } from './db.js';

/**
 * The SQL of the limits shared by gateway replicas (gateway/limits/). Each statement is one atomic
 * step on one row, so replicas need no lock of their own: PostgreSQL's row lock orders them. Times
 * come from the database clock, one clock for every replica, unless a test passes its own.
 */

/**
 * Commits the statement that joins it without waiting for its WAL flush (synchronous_commit off for
 * its own transaction only). Limits are not money: a database crash may forget the last moments of
 * token takes and leases, which only loosens a limit briefly (docs/platform.md, Limits). Credit
 * statements never use it.
 */
const ASYNC_COMMIT = `(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

export interface BucketState {
  tokens: number;
  granted: boolean;
}

/** The bucket upsert of `takeToken` ($1 key, $2 capacity, $3 rate, $4 clock or null), returning tokens and granted. */
const TAKE_TOKEN = (() => {
  const level = `LEAST($2::float8, b.tokens + GREATEST(0, EXCLUDED.refilled_at_ms - b.refilled_at_ms) * $3::float8 / 1000)`;
  return `INSERT INTO rate_limit_buckets AS b (key_id, tokens, refilled_at_ms, granted)
     SELECT $1, $2::float8 - 1, COALESCE($4::float8, extract(epoch FROM clock_timestamp()) * 1000), true FROM ${ASYNC_COMMIT}
     ON CONFLICT (key_id) DO UPDATE SET
       tokens = ${level} - CASE WHEN ${level} >= 1 THEN 1 ELSE 0 END,
       refilled_at_ms = GREATEST(b.refilled_at_ms, EXCLUDED.refilled_at_ms),
       granted = ${level} >= 1
     RETURNING tokens, granted`;
})();

/**
 * Refills the key's bucket for the time since its last refill (at `rate` per second, up to
 * `capacity`), then takes one token if a whole one is there. One upsert: concurrent takers of the
 * same key are serialised on its row, and each sees the tokens the previous one left.
 */
export async function takeToken(db: Queryable, keyId: string, rate: number, capacity: number, nowMs: number | null): Promise<BucketState> {
  const result = await db.query<BucketState>(TAKE_TOKEN, [keyId, capacity, rate, nowMs], { name: 'limits_take_token' });
  return result.rows[0];
}

export interface SlotClaim {
  /** Free slots seen; 0 means the organization is full. */
  candidates: number;
  /** The slot taken, or null when another replica took the chosen one first (try again). */
  slot: number | null;
  /** Live leases other than the one just taken. */
  busy: number;
}

/**
 * Takes one free slot for `holder` until `leaseMs` from now. A slot is free when it has no row or its
 * lease expired. The slot is chosen among the first `busy + 8` numbers (capped at the limit): with
 * fewer than `limit` live leases that range always holds a free one, so the cost follows the live
 * leases, not the limit. Two replicas choosing the same free slot meet on its primary key; the loser
 * gets `slot: null` and chooses again.
 */
export async function claimSlot(db: Queryable, organizationId: string, limit: number, holder: string, leaseMs: number): Promise<SlotClaim> {
  const result = await db.query<SlotClaim>(
    `WITH ${claimClauses({ organization: '$1', limit: '$2', holder: '$3', leaseMs: '$4' }, `, ${ASYNC_COMMIT}`, 'true')}
     SELECT (SELECT count(*) FROM candidate)::int AS candidates,
            (SELECT slot FROM taken) AS slot,
            (SELECT count(*) FROM live)::int AS busy`,
    [organizationId, limit, holder, leaseMs],
    { name: 'limits_claim_slot' },
  );
  return result.rows[0];
}

/** The WITH clauses live, candidate and taken of a slot claim, with the statement's parameter names; no candidate unless `when`. */
function claimClauses(p: { organization: string; limit: string; holder: string; leaseMs: string }, asyncCommit: string, when: string): string {
  return `live AS (
       SELECT c.slot FROM concurrency_slots c${asyncCommit}
        WHERE c.organization_id = ${p.organization} AND c.expires_at > clock_timestamp()
     ), candidate AS (
       SELECT s AS slot FROM generate_series(0, LEAST(${p.limit}::int, (SELECT count(*) FROM live)::int + 8) - 1) s
       WHERE s NOT IN (SELECT slot FROM live) AND ${when}
       ORDER BY random() LIMIT 1
     ), taken AS (
       INSERT INTO concurrency_slots AS c (organization_id, slot, holder, expires_at)
       SELECT ${p.organization}, slot, ${p.holder}, clock_timestamp() + ${p.leaseMs}::int * interval '1 millisecond' FROM candidate
       ON CONFLICT (organization_id, slot) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
         WHERE c.expires_at <= clock_timestamp()
       RETURNING c.slot
     )`;
}

export interface TokenAndSlot extends BucketState, SlotClaim {
  /** The hold asked for was taken (only ever with a slot). */
  held: boolean;
}

/**
 * `takeToken` and, only when the token was granted, `claimSlot`, in one statement (a scrape's
 * admission: one round trip instead of two). Not granted: no slot is looked for (candidates 0).
 * With `hold`, the credit hold too, only when a slot was taken and the allowance covers it (else
 * `held` is false and the caller holds by its own statement). Locks the key's bucket row, then the
 * organization's slot row, then the period row (docs/batch.md "Lock order").
 */
export async function takeTokenAndClaimSlot(
  db: Queryable,
  token: { keyId: string; rate: number; capacity: number; nowMs: number | null },
  slot: { organizationId: string; limit: number; holder: string; leaseMs: number },
  hold: HoldRequest | null = null,
): Promise<TokenAndSlot> {
  const claim = claimClauses({ organization: '$5', limit: '$6', holder: '$7', leaseMs: '$8' }, '', '(SELECT granted FROM bucket)');
  // From bucket, whose upsert returns its row every time: one row, and no subquery per column of it.
  const columns = `b.tokens, b.granted,
            (SELECT count(*) FROM candidate)::int AS candidates, (SELECT slot FROM taken) AS slot,
            (SELECT count(*) FROM live)::int AS busy`;
  const params = [token.keyId, token.capacity, token.rate, token.nowMs, slot.organizationId, slot.limit, slot.holder, slot.leaseMs];
  if (hold === null) {
    const result = await db.query<TokenAndSlot>(`WITH bucket AS (${TAKE_TOKEN}), ${claim} SELECT ${columns}, false AS held FROM bucket b`, params, {
      name: 'limits_take_token_claim_slot',
    });
    return result.rows[0];
  }
  const holding = holdClauses(
    { organization: '$5', start: '$9', environment: '$10', amount: '$11', allowance: '$12', id: '$13', project: '$14', requestId: '$15' },
    'EXISTS (SELECT 1 FROM taken)',
  );
  const result = await db.query<TokenAndSlot>(
    `WITH bucket AS (${TAKE_TOKEN}), ${claim}, ${holding} SELECT ${columns}, EXISTS (SELECT 1 FROM reserved) AS held FROM bucket b`,
    [...params, hold.periodStart, hold.environment, hold.amountMicro, hold.allowanceMicro, hold.id, hold.projectId, hold.requestId],
    { name: 'limits_admit_and_hold' },
  );
  return result.rows[0];
}

export async function releaseSlot(db: Queryable, holder: string): Promise<void> {
  await db.query(`DELETE FROM concurrency_slots WHERE holder = $1 AND EXISTS (SELECT 1 FROM ${ASYNC_COMMIT})`, [holder], { name: 'limits_release_slot' });
}

/** Extends the leases of the given holders (the heartbeat of a gateway's running requests). */
export async function renewSlots(db: Queryable, holders: string[], leaseMs: number): Promise<number> {
  if (holders.length === 0) return 0;
  const result = await db.query(
    `UPDATE concurrency_slots SET expires_at = clock_timestamp() + $2::int * interval '1 millisecond' WHERE holder = ANY($1::text[])`,
    [holders, leaseMs],
  );
  return result.rowCount;
}
