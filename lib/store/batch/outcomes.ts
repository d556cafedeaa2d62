import type { Queryable } from '../db.js';

/**
 * Writes of the batch lifecycle (gateway/batch/lifecycle.ts). Lock order, for every transaction that
 * touches batch rows (docs/batch.md "Lock order"): batch_jobs -> batch_items -> credit_reservations ->
 * credit_periods. Each function here locks only item rows; the caller takes the job row first.
 */

export interface OutcomeRow {
  jobId: string;
  seq: number;
  owner: string;
  status: 'queued' | 'succeeded' | 'failed';
  releaseDelayMs: number;
  httpStatus: number | null;
  bytes: number;
  durationMs: number;
  error: { code: string; retryable: boolean; detail: string | null } | null;
  contentType: string | null;
  body: Buffer | null;
}

/**
 * Records an outcome, fenced by the lease: null when this owner no longer runs the item. A failed
 * item's hold is due back after `releaseDelayMs`; a re-queued item keeps its hold.
 */
export async function recordItemOutcome(tx: Queryable, row: OutcomeRow): Promise<{ reservationId: string | null; holdMicro: number } | null> {
  const result = await tx.query<{ reservation_id: string | null; hold_micro: number }>(
    `UPDATE batch_items SET status = $4, lease_owner = NULL, lease_expires_at = NULL,
            finished_at = CASE WHEN $4 = 'queued' THEN NULL ELSE now() END,
            release_at = CASE WHEN $4 = 'failed' THEN now() + ($5::bigint * interval '1 millisecond') ELSE NULL END,
            http_status = $6, bytes = $7, duration_ms = $8, error_code = $9, error_retryable = $10, error_detail = $11,
            content_type = $12, body = $13, credits_micro = 0
      WHERE job_id = $1 AND seq = $2 AND lease_owner = $3 AND status = 'running'
      RETURNING reservation_id, hold_micro`,
    [row.jobId, row.seq, row.owner, row.status, row.releaseDelayMs, row.httpStatus, row.bytes, row.durationMs,
      row.error?.code ?? null, row.error?.retryable ?? null, row.error?.detail ?? null, row.contentType, row.body],
  );
  const updated = result.rows[0];
  return updated ? { reservationId: updated.reservation_id, holdMicro: Number(updated.hold_micro) } : null;
}

export async function setItemCharge(tx: Queryable, jobId: string, seq: number, chargedMicro: number): Promise<void> {
  await tx.query('UPDATE batch_items SET credits_micro = $3 WHERE job_id = $1 AND seq = $2', [jobId, seq, chargedMicro]);
}

export async function countItems(tx: Queryable, jobId: string): Promise<{ queued: number; running: number; failed: number }> {
  const result = await tx.query<{ queued: number; running: number; failed: number }>(
    `SELECT count(*) FILTER (WHERE status = 'queued')::bigint AS queued, count(*) FILTER (WHERE status = 'running')::bigint AS running,
            count(*) FILTER (WHERE status = 'failed')::bigint AS failed
       FROM batch_items WHERE job_id = $1`,
    [jobId],
  );
  const row = result.rows[0];
  return { queued: Number(row.queued), running: Number(row.running), failed: Number(row.failed) };
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
  return result.rowCount > 0;
}

export async function clearRelease(tx: Queryable, jobId: string, seq: number): Promise<void> {
  await tx.query('UPDATE batch_items SET release_at = NULL WHERE job_id = $1 AND seq = $2', [jobId, seq]);
}

/** A stopping dispatcher hands its running items back to the queue (their attempt still counts). */
export async function handBackItems(db: Queryable, owner: string): Promise<number> {
  const result = await db.query(
    `UPDATE batch_items SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = $1 AND status = 'running'`,
    [owner],
  );
  return result.rowCount;
}

/** Locks a job's failed items (a retry takes them back) before their holds are read. */
export async function lockFailedItems(tx: Queryable, jobId: string): Promise<void> {
  await tx.query(`SELECT seq FROM batch_items WHERE job_id = $1 AND status = 'failed' ORDER BY seq FOR UPDATE`, [jobId]);
}
