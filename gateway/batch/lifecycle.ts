import type { Queryable } from '../../lib/store/db.js';
import { settleReservation } from '../../lib/store/credits.js';
import { cancelQueuedItems } from '../../lib/store/batch/items.js';
import { getJobById, updateJob, type JobRow } from '../../lib/store/batch/jobs.js';
import { enqueueDelivery } from '../../lib/store/batch/webhooks.js';
import { jobObjectOf } from './job-view.js';

export const WEBHOOK_EVENT = 'batch.finished';
export const FAILURE_THRESHOLD_CODE = 'FAILURE_THRESHOLD_REACHED';

export interface ItemOutcome {
  /** `retry`: a retryable failure with attempts left; the item goes back to the queue. */
  kind: 'succeeded' | 'failed' | 'retry';
  httpStatus: number | null;
  chargedMicro: number;
  engine: string | null;
  bytes: number;
  durationMs: number;
  error: { code: string; retryable: boolean; detail: string | null } | null;
  contentType: string | null;
  body: Buffer | null;
}

export interface FinishInput {
  jobId: string;
  seq: number;
  owner: string;
  requestId: string;
  outcome: ItemOutcome;
  releaseDelayMs: number;
}

/**
 * Records an item's outcome, settles its hold and moves the job on, in the caller's transaction. Fenced
 * by the lease: when this dispatcher no longer owns the item (its lease expired and another took it)
 * nothing is written or billed and false comes back, so an item is billed at most once.
 */
export async function finishItem(tx: Queryable, input: FinishInput): Promise<boolean> {
  const { outcome } = input;
  const status = outcome.kind === 'retry' ? 'queued' : outcome.kind;
  const finished = outcome.kind !== 'retry';
  const updated = await tx.query<{ reservation_id: string | null }>(
    `UPDATE batch_items SET status = $4, lease_owner = NULL, lease_expires_at = NULL,
            finished_at = CASE WHEN $5 THEN now() ELSE NULL END,
            release_at = CASE WHEN $4 = 'failed' THEN now() + ($6::bigint * interval '1 millisecond') ELSE NULL END,
            http_status = $7, bytes = $8, duration_ms = $9, error_code = $10, error_retryable = $11, error_detail = $12,
            content_type = $13, body = $14, credits_micro = 0
      WHERE job_id = $1 AND seq = $2 AND lease_owner = $3 AND status = 'running'
      RETURNING reservation_id`,
    [input.jobId, input.seq, input.owner, status, finished, input.releaseDelayMs, outcome.httpStatus,
      outcome.kind === 'succeeded' ? outcome.bytes : 0, outcome.durationMs, outcome.error?.code ?? null,
      outcome.error?.retryable ?? null, outcome.error?.detail ?? null, outcome.contentType, outcome.body],
  );
  if (updated.rowCount === 0) return false;
  const reservationId = updated.rows[0].reservation_id;
  if (outcome.kind === 'succeeded' && reservationId !== null) {
    const settled = await settleReservation(tx, reservationId, outcome.chargedMicro, outcome.engine);
    const charged = settled ? Math.min(outcome.chargedMicro, await holdOf(tx, input.jobId, input.seq)) : 0;
    await tx.query('UPDATE batch_items SET credits_micro = $3 WHERE job_id = $1 AND seq = $2', [input.jobId, input.seq, charged]);
  }
  if (reservationId !== null) {
    await tx.query('UPDATE credit_reservations SET request_id = $2 WHERE id = $1', [reservationId, input.requestId]);
  }
  if (outcome.kind === 'failed') await checkFailureThreshold(tx, input.jobId, input.releaseDelayMs);
  await finalizeJob(tx, input.jobId, input.releaseDelayMs);
  return true;
}

async function holdOf(tx: Queryable, jobId: string, seq: number): Promise<number> {
  const result = await tx.query<{ hold_micro: number }>('SELECT hold_micro FROM batch_items WHERE job_id = $1 AND seq = $2', [jobId, seq]);
  return Number(result.rows[0]?.hold_micro ?? 0);
}

/** `failure_threshold` failed items abort the job: it fails at once and its queued items are cancelled. */
async function checkFailureThreshold(tx: Queryable, jobId: string, releaseDelayMs: number): Promise<void> {
  const job = await lockJob(tx, jobId);
  if (!job || job.failure_threshold === null || (job.status !== 'queued' && job.status !== 'running')) return;
  const failed = await tx.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM batch_items WHERE job_id = $1 AND status = 'failed'`, [jobId]);
  if (Number(failed.rows[0].n) < Number(job.failure_threshold)) return;
  await cancelQueuedItems(tx, jobId, releaseDelayMs);
  await updateJob(tx, jobId, {
    status: 'failed',
    finished_at: new Date(),
    error_code: FAILURE_THRESHOLD_CODE,
    error_message: `${job.failure_threshold} items failed, reaching failure_threshold; the job was aborted`,
  });
  await notifyFinished(tx, jobId);
}

/**
 * Moves an active job to its end when nothing is left to run: `cancelling` -> `cancelled` once no item
 * is running; a closed job with no queued or running item -> `completed`. Open jobs never complete.
 */
export async function finalizeJob(tx: Queryable, jobId: string, releaseDelayMs: number): Promise<void> {
  const job = await lockJob(tx, jobId);
  if (!job) return;
  const counts = await tx.query<{ queued: number; running: number }>(
    `SELECT count(*) FILTER (WHERE status = 'queued')::bigint AS queued, count(*) FILTER (WHERE status = 'running')::bigint AS running
       FROM batch_items WHERE job_id = $1`,
    [jobId],
  );
  const queued = Number(counts.rows[0].queued);
  const running = Number(counts.rows[0].running);
  if (job.status === 'cancelling') {
    if (queued > 0) await cancelQueuedItems(tx, jobId, releaseDelayMs);
    if (running > 0) return;
    await updateJob(tx, jobId, { status: 'cancelled', finished_at: new Date() });
  } else if ((job.status === 'queued' || job.status === 'running') && !job.open && queued === 0 && running === 0) {
    await updateJob(tx, jobId, { status: 'completed', finished_at: new Date() });
  } else {
    return;
  }
  await notifyFinished(tx, jobId);
}

async function lockJob(tx: Queryable, jobId: string): Promise<JobRow | null> {
  const result = await tx.query<JobRow>('SELECT * FROM batch_jobs WHERE id = $1 FOR UPDATE', [jobId]);
  return result.rows[0] ?? null;
}

/** Events rule 1: the job object goes to the job's webhook endpoint, queued in the same transaction. */
async function notifyFinished(tx: Queryable, jobId: string): Promise<void> {
  const job = await getJobById(tx, jobId);
  if (!job || job.webhook_endpoint_id === null) return;
  const payload = JSON.stringify(await jobObjectOf(tx, job));
  await enqueueDelivery(tx, { endpointId: job.webhook_endpoint_id, jobId, event: WEBHOOK_EVENT, payload });
}

/** A crashed dispatcher's item: back to the queue (the attempt counts), or failed when none are left. */
export async function requeueExpired(tx: Queryable, item: { job_id: string; seq: number; attempts: number; max_attempts: number; job_status: string }, releaseDelayMs: number): Promise<void> {
  const active = item.job_status === 'queued' || item.job_status === 'running' || item.job_status === 'paused';
  const exhausted = item.attempts >= item.max_attempts;
  const status = !active ? 'cancelled' : exhausted ? 'failed' : 'queued';
  await tx.query(
    `UPDATE batch_items SET status = $3, lease_owner = NULL, lease_expires_at = NULL,
            finished_at = CASE WHEN $3 = 'queued' THEN NULL ELSE now() END,
            release_at = CASE WHEN $3 = 'queued' THEN NULL ELSE now() + ($4::bigint * interval '1 millisecond') END,
            error_code = CASE WHEN $3 = 'failed' THEN 'ERR::INTERNAL::ERROR' ELSE error_code END,
            error_retryable = CASE WHEN $3 = 'failed' THEN true ELSE error_retryable END,
            error_detail = CASE WHEN $3 = 'failed' THEN 'the gateway running this item stopped' ELSE error_detail END
      WHERE job_id = $1 AND seq = $2 AND status = 'running'`,
    [item.job_id, item.seq, status, releaseDelayMs],
  );
  if (status === 'failed') await checkFailureThreshold(tx, item.job_id, releaseDelayMs);
  await finalizeJob(tx, item.job_id, releaseDelayMs);
}
