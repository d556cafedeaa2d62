import type { Queryable } from './db.js';

/** One row of `proxy_exit_health` (migration 018): an exit's health, or an exit's with one target domain. */
export interface ExitHealthRow {
  exit_key: string;
  domain: string;
  successes: number;
  failures: number;
  bans: number;
  consecutive: number;
  cooldown_until: number;
  auth_failed_hash: string | null;
  last_error: string | null;
}

/** What one use of an exit changes in a health row. */
export interface HealthChange {
  exitKey: string;
  /** '' for the exit's own row. */
  domain: string;
  success: boolean;
  failure: boolean;
  ban: boolean;
  /** Start (or lengthen) a cooldown: base times 2^(consecutive trips), capped. */
  trip: boolean;
  authFailedHash: string | null;
  lastError: string | null;
  now: number;
  baseMs: number;
  maxMs: number;
}

const ROW = `exit_key, domain, successes::float8 AS successes, failures::float8 AS failures, bans::float8 AS bans, consecutive,
  cooldown_until::float8 AS cooldown_until, auth_failed_hash, last_error`;

/**
 * Applies one use to a health row in one statement, so replicas recording at once both count and the
 * back-off grows from the stored number of consecutive trips. A success ends a cooldown and a 407 mark.
 */
export async function recordExitHealth(db: Queryable, change: HealthChange): Promise<ExitHealthRow> {
  const result = await db.query<ExitHealthRow>(
    `INSERT INTO proxy_exit_health AS h (exit_key, domain, successes, failures, bans, consecutive, cooldown_until, auth_failed_hash, last_error, updated_at)
     VALUES ($1, $2, $3::int, $4::int, $5::int, CASE WHEN $6 THEN 1 ELSE 0 END,
             CASE WHEN $6 THEN $7::bigint + LEAST($8::bigint, $9::bigint) ELSE 0 END, $10, $11, now())
     ON CONFLICT (exit_key, domain) DO UPDATE SET
       successes = h.successes + excluded.successes,
       failures = h.failures + excluded.failures,
       bans = h.bans + excluded.bans,
       consecutive = CASE WHEN $6 THEN h.consecutive + 1 WHEN $12 THEN 0 ELSE h.consecutive END,
       cooldown_until = CASE
         WHEN $6 THEN $7::bigint + LEAST($8::bigint * power(2, LEAST(h.consecutive, 30))::bigint, $9::bigint)
         WHEN $12 THEN 0 ELSE h.cooldown_until END,
       auth_failed_hash = CASE WHEN $10::text IS NOT NULL THEN $10::text WHEN $12 THEN NULL ELSE h.auth_failed_hash END,
       last_error = COALESCE($11, h.last_error),
       updated_at = now()
     RETURNING ${ROW}`,
    [
      change.exitKey,
      change.domain,
      change.success ? 1 : 0,
      change.failure ? 1 : 0,
      change.ban ? 1 : 0,
      change.trip,
      change.now,
      change.baseMs,
      change.maxMs,
      change.authFailedHash,
      change.lastError,
      change.success,
    ],
    { name: 'proxy_health_record' },
  );
  return result.rows[0];
}

/**
 * Successes counted by one replica since its last flush, one statement for all exits. A success ends
 * an exit's run of consecutive failures unless the exit is cooling down meanwhile (a use that began
 * before another replica's trip must not lift the cooldown).
 */
export async function addExitSuccesses(db: Queryable, counts: ReadonlyMap<string, number>, now: number): Promise<void> {
  if (counts.size === 0) return;
  await db.query(
    `INSERT INTO proxy_exit_health AS h (exit_key, domain, successes, updated_at)
     SELECT key, '', n, now() FROM unnest($1::text[], $2::int[]) AS u(key, n)
     ON CONFLICT (exit_key, domain) DO UPDATE SET
       successes = h.successes + excluded.successes,
       consecutive = CASE WHEN h.cooldown_until > $3::bigint THEN h.consecutive ELSE 0 END,
       updated_at = now()`,
    [[...counts.keys()], [...counts.values()], now],
  );
}

/** Every exit's own row, and the per-domain rows still cooling down: what selection reads. */
export async function loadExitHealth(db: Pick<Queryable, 'query'>, now: number): Promise<ExitHealthRow[]> {
  const result = await db.query<ExitHealthRow>(
    `SELECT ${ROW} FROM proxy_exit_health WHERE domain = '' OR cooldown_until > $1`,
    [now],
    { name: 'proxy_health_load' },
  );
  return result.rows;
}

/**
 * Deletes per-domain health rows (never an exit's own row): those unchanged for `olderThanMs` and not
 * cooling down, and beyond the `maxRows` most recently changed whatever their state, so the table and
 * what every gateway loads of it (the cooling rows) stay bounded however many sites the exits meet.
 * A deleted row only forgets: the exit's next ban on that domain starts its back-off afresh.
 *
 * Lock order (docs/proxy-pools.md, "Pruning"): the rows are locked in (exit_key, domain) order and any
 * row another transaction holds is skipped (SKIP LOCKED), so a prune never waits; recordExitHealth and
 * addExitSuccesses change rows in single autocommit statements, so neither holds one row while waiting
 * for another, and two gateways pruning at once skip each other's rows. No wait cycle can form.
 */
export async function pruneDomainHealth(db: Queryable, input: { now: number; olderThanMs: number; maxRows: number }): Promise<number> {
  const result = await db.query(
    `WITH candidates AS (
       SELECT exit_key, domain FROM proxy_exit_health
        WHERE domain <> '' AND cooldown_until <= $1 AND updated_at < to_timestamp($1 / 1000.0) - ($2::bigint * interval '1 millisecond')
       UNION
       SELECT exit_key, domain FROM (
         SELECT exit_key, domain FROM proxy_exit_health WHERE domain <> '' ORDER BY updated_at DESC, exit_key, domain OFFSET $3
       ) AS beyond
     ), locked AS (
       SELECT h.exit_key, h.domain FROM proxy_exit_health h JOIN candidates c USING (exit_key, domain)
        ORDER BY h.exit_key, h.domain FOR UPDATE OF h SKIP LOCKED
     )
     DELETE FROM proxy_exit_health h USING locked l WHERE h.exit_key = l.exit_key AND h.domain = l.domain`,
    [input.now, input.olderThanMs, input.maxRows],
  );
  return result.rowCount;
}

/** Per-domain rows of the exits, most recently changed first (the dashboard's view), at most `limit`. */
export async function listDomainHealth(db: Queryable, limit: number): Promise<ExitHealthRow[]> {
  const result = await db.query<ExitHealthRow>(
    `SELECT ${ROW} FROM proxy_exit_health WHERE domain <> '' ORDER BY updated_at DESC LIMIT $1`,
    [limit],
  );
  return result.rows;
}

export interface StickyAssignment {
  exit_key: string;
  session_token: string;
}

export async function findStickyExit(db: Queryable, projectId: string, stickyKey: string): Promise<StickyAssignment | null> {
  const result = await db.query<StickyAssignment>(
    `SELECT exit_key, session_token FROM proxy_sticky_exits WHERE project_id = $1 AND sticky_key = $2`,
    [projectId, stickyKey],
    { name: 'proxy_sticky_find' },
  );
  return result.rows[0] ?? null;
}

/**
 * Assigns a sticky key an exit unless another replica did first, or moves it off `replacing` unless
 * another replica moved it already; either way returns the assignment every replica now sees.
 */
export async function assignStickyExit(
  db: Queryable,
  input: { projectId: string; stickyKey: string; exitKey: string; sessionToken: string; replacing: string | null },
): Promise<StickyAssignment> {
  const { projectId, stickyKey, exitKey, sessionToken, replacing } = input;
  const written =
    replacing === null
      ? await db.query<StickyAssignment>(
          `INSERT INTO proxy_sticky_exits (project_id, sticky_key, exit_key, session_token) VALUES ($1, $2, $3, $4)
           ON CONFLICT (project_id, sticky_key) DO NOTHING RETURNING exit_key, session_token`,
          [projectId, stickyKey, exitKey, sessionToken],
        )
      : await db.query<StickyAssignment>(
          `UPDATE proxy_sticky_exits SET exit_key = $3, session_token = $4, updated_at = now()
           WHERE project_id = $1 AND sticky_key = $2 AND exit_key = $5 RETURNING exit_key, session_token`,
          [projectId, stickyKey, exitKey, sessionToken, replacing],
        );
  if (written.rows[0]) return written.rows[0];
  const current = await findStickyExit(db, projectId, stickyKey);
  if (current) return current;
  // Deleted between the two statements (retention): assign afresh.
  return assignStickyExit(db, { ...input, replacing: null });
}

/** Sticky assignments unused for `olderThanMs` go (store maintenance). */
export async function pruneStickyExits(db: Queryable, olderThanMs: number): Promise<number> {
  const result = await db.query(`DELETE FROM proxy_sticky_exits WHERE updated_at < now() - ($1::bigint * interval '1 millisecond')`, [olderThanMs]);
  return result.rowCount;
}
