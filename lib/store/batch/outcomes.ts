import type { Db, Queryable } from '../db.js';

/**
 * Writes of the batch lifecycle (gateway/batch/lifecycle.ts). Lock order, for every transaction that
 * touches batch rows (docs/batch.md "Lock order"): batch_jobs -> batch_items -> credit_reservations ->
 * credit_periods or credit_settled. Each function here locks only item rows; the caller takes the job row first.
 */

export interface OutcomeRow {
  seq: number;
  status: 'queued' | 'succeeded' | 'failed';
  httpStatus: number | null;
  bytes: number;
  durationMs: number;
  error: { code: string; retryable: boolean; detail: string | null } | null;
  contentType: string | null;
  body: Buffer | null;
  /** A succeeded item's charge (capped at its hold); 0 for the rest. */
  chargedMicro: number;
}

export interface RecordedOutcome {
  seq: number;
  reservationId: string | null;
  holdMicro: number;
}

/**
 * Records several outcomes of one job in one statement, each fenced by the lease: only items this owner
 * still runs are written and come back. A failed item's hold is due back after `releaseDelayMs`; a
 * re-queued item keeps its hold. A succeeded item with a hold is recorded with its charge (capped at
 * the hold), which stands once its hold settles in the same transaction; `clearItemCharges` takes it
 * back for an item whose hold had been settled before. The seqs also go as an array, so the rows are
 * found by index (`seq = ANY(...)`), not by hashing all of the job's items for each group.
 */
export async function recordItemOutcomes(
  tx: Queryable,
  target: { jobId: string; owner: string; releaseDelayMs: number },
  rows: OutcomeRow[],
): Promise<RecordedOutcome[]> {
  if (rows.length === 0) return [];
  const values = rows.map((row) => ({
    seq: row.seq, status: row.status, http_status: row.httpStatus, bytes: row.bytes, duration_ms: row.durationMs,
    error_code: row.error?.code ?? null, error_retryable: row.error?.retryable ?? null, error_detail: row.error?.detail ?? null,
    content_type: row.contentType, body: row.body === null ? null : row.body.toString('base64'), charged: row.chargedMicro,
  }));
  const result = await tx.query<{ seq: number; reservation_id: string | null; hold_micro: number }>(
    `UPDATE batch_items b SET status = v.status, lease_owner = NULL, lease_expires_at = NULL,
            finished_at = CASE WHEN v.status = 'queued' THEN NULL ELSE now() END,
            release_at = CASE WHEN v.status = 'failed' THEN now() + ($3::bigint * interval '1 millisecond') ELSE NULL END,
            http_status = v.http_status, bytes = v.bytes, duration_ms = v.duration_ms, error_code = v.error_code,
            error_retryable = v.error_retryable, error_detail = v.error_detail, content_type = v.content_type,
            body = decode(v.body, 'base64'),
            credits_micro = CASE WHEN v.status = 'succeeded' AND b.reservation_id IS NOT NULL THEN LEAST(v.charged, b.hold_micro) ELSE 0 END
       FROM jsonb_to_recordset($4::jsonb) AS v(seq bigint, status text, http_status integer, bytes bigint, duration_ms bigint,
            error_code text, error_retryable boolean, error_detail text, content_type text, body text, charged bigint)
      WHERE b.job_id = $1 AND b.seq = ANY($5::bigint[]) AND b.seq = v.seq AND b.lease_owner = $2 AND b.status = 'running'
      RETURNING b.seq, b.reservation_id, b.hold_micro`,
    [target.jobId, target.owner, target.releaseDelayMs, JSON.stringify(values), rows.map((row) => row.seq)],
  );
  return result.rows.map((row) => ({ seq: Number(row.seq), reservationId: row.reservation_id, holdMicro: Number(row.hold_micro) }));
}

/** Succeeded items whose hold this transaction did not settle (settled before) were charged nothing. */
export async function clearItemCharges(tx: Queryable, jobId: string, seqs: number[]): Promise<void> {
  if (seqs.length === 0) return;
  await tx.query(`UPDATE batch_items SET credits_micro = 0 WHERE job_id = $1 AND seq = ANY($2::bigint[])`, [jobId, seqs]);
}

/** A running item whose lease has run out, locked; null when it finished or was renewed meanwhile. */
export async function lockExpiredItem(tx: Queryable, jobId: string, seq: number): Promise<{ attempts: number } | null> {
  const result = await tx.query<{ attempts: number }>(
    `SELECT attempts FROM batch_items WHERE job_id = $1 AND seq = $2 AND status = 'running' AND lease_expires_at < now() FOR UPDATE`,
    [jobId, seq],
  );
  return result.rows[0] ? { attempts: Number(result.rows[0].attempts) } : null;
}

/** A crashed dispatcher's item: back to the queue, or ended (`failed`, `cancelled`) with its hold due back. */
export async function endExpiredItem(tx: Queryable, jobId: string, seq: number, status: 'queued' | 'failed' | 'cancelled', releaseDelayMs: number): Promise<void> {
  await tx.query(
    `UPDATE batch_items SET status = $3, lease_owner = NULL, lease_expires_at = NULL,
            finished_at = CASE WHEN $3 = 'queued' THEN NULL ELSE now() END,
            release_at = CASE WHEN $3 = 'queued' THEN NULL ELSE now() + ($4::bigint * interval '1 millisecond') END,
            error_code = CASE WHEN $3 = 'failed' THEN 'ERR::INTERNAL::ERROR' ELSE error_code END,
            error_retryable = CASE WHEN $3 = 'failed' THEN true ELSE error_retryable END,
            error_detail = CASE WHEN $3 = 'failed' THEN 'the gateway running this item stopped' ELSE error_detail END
      WHERE job_id = $1 AND seq = $2 AND status = 'running'`,
    [jobId, seq, status, releaseDelayMs],
  );
}

/**
 * Locks an item whose hold is due back, still holding `reservationId`; null when a retry took the
 * item back meanwhile (it then keeps the hold, which must not be returned).
 */
export async function lockDueRelease(tx: Queryable, jobId: string, seq: number, reservationId: string | null): Promise<boolean> {
  const result = await tx.query(
    `SELECT 1 FROM batch_items WHERE job_id = $1 AND seq = $2 AND release_at <= now()
        AND reservation_id IS NOT DISTINCT FROM $3 FOR UPDATE`,
    [jobId, seq, reservationId],
  );
  // rows, not rowCount: PGlite reports no row count for a SELECT ... FOR UPDATE.
  return result.rows.length > 0;
}

export async function clearRelease(tx: Queryable, jobId: string, seq: number): Promise<void> {
  await tx.query('UPDATE batch_items SET release_at = NULL WHERE job_id = $1 AND seq = $2', [jobId, seq]);
}

/**
 * A stopping dispatcher hands its running items back to the queue (their attempt still counts). Their
 * jobs are locked first (the totals on the job rows move with the items, and the lock order puts jobs
 * before items), in id order so two stopping dispatchers never wait on each other crosswise.
 */
export async function handBackItems(db: Db, owner: string): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query(
      `SELECT id FROM batch_jobs WHERE id IN (SELECT job_id FROM batch_items WHERE lease_owner = $1 AND status = 'running')
        ORDER BY id FOR UPDATE`,
      [owner],
    );
    const result = await tx.query(
      `UPDATE batch_items SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = $1 AND status = 'running'`,
      [owner],
    );
    return result.rowCount;
  });
}

/** Locks a job's failed items (a retry takes them back) before their holds are read. */
export async function lockFailedItems(tx: Queryable, jobId: string): Promise<void> {
  await tx.query(`SELECT seq FROM batch_items WHERE job_id = $1 AND status = 'failed' ORDER BY seq FOR UPDATE`, [jobId]);
}
