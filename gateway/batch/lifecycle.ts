import type { Queryable } from '../../lib/store/db.js';
import type { RequestLogRow } from '../../lib/store/request-log.js';
import { settleStored } from '../../lib/store/stored-settlements.js';
import { settleItemHolds } from '../../lib/store/batch/holds.js';
import { cancelQueuedItems } from '../../lib/store/batch/items.js';
import { getJobById, lockJob, updateJob, type JobRow } from '../../lib/store/batch/jobs.js';
import { clearRelease, endExpiredItem, lockDueRelease, lockExpiredItem, recordItemOutcomes, clearItemCharges, type RecordedOutcome } from '../../lib/store/batch/outcomes.js';
import { enqueueDelivery } from '../../lib/store/batch/webhooks.js';
import { jobObjectOf } from './job-view.js';

/*
 * Lock order (docs/batch.md "Lock order"): every transaction here takes batch_jobs (the job row),
 * then batch_items, then credit_reservations, then credit_periods (holds) or credit_settled (settlements),
 * never the other way round. That is
 * why finishItems locks the job before it touches the item: finalizing afterwards needs the job row, and
 * a retry (job -> items -> holds) must never wait for a finisher that waits for it. The job's totals
 * (migration 014) are moved by triggers on batch_items, which write the job row: one more reason every
 * statement changing items comes after the job row is locked.
 */

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
  /** The attempt's request log entry, stored with the result (absent: logged elsewhere). */
  log?: RequestLogRow;
}

export interface FinishedItem {
  seq: number;
  requestId: string;
  outcome: ItemOutcome;
  /** Waited for inside the transaction once the item's hold is settled, before the job moves on (the dispatcher's afterSettle wait point). */
  afterSettle?: () => Promise<void>;
}

export interface FinishInput extends FinishedItem {
  jobId: string;
  owner: string;
  releaseDelayMs: number;
}

/** One item's outcome; see finishItems. */
export async function finishItem(tx: Queryable, input: FinishInput): Promise<boolean> {
  const written = await finishItems(tx, { jobId: input.jobId, owner: input.owner, releaseDelayMs: input.releaseDelayMs }, [input]);
  return written.has(input.seq);
}

/**
 * Records finished items of one job, settles their holds and moves the job on, in the caller's
 * transaction: a handful of statements for the whole group (docs/batch.md "Results written in
 * batches"). Fenced by the lease: an item this dispatcher no longer owns (its lease expired and another
 * took it) is neither written nor billed and is missing from the map returned, so an item is billed
 * at most once. The map gives each written item's charge in micro-credits (0 unless it succeeded and
 * its hold was settled).
 */
export async function finishItems(tx: Queryable, target: { jobId: string; owner: string; releaseDelayMs: number }, items: FinishedItem[]): Promise<Map<number, number>> {
  const job = await lockJob(tx, target.jobId);
  if (!job) return new Map();
  const bySeq = new Map(items.map((item) => [item.seq, item]));
  const recorded = await recordItemOutcomes(
    tx,
    target,
    items.map(({ seq, outcome }) => ({
      seq,
      status: outcome.kind === 'retry' ? 'queued' : outcome.kind,
      httpStatus: outcome.httpStatus,
      bytes: outcome.kind === 'succeeded' ? outcome.bytes : 0,
      durationMs: outcome.durationMs,
      error: outcome.error,
      contentType: outcome.contentType,
      body: outcome.body,
      chargedMicro: outcome.kind === 'succeeded' ? outcome.chargedMicro : 0,
    })),
  );
  const held = recorded.filter((row): row is RecordedOutcome & { reservationId: string } => row.reservationId !== null);
  const succeeded = (row: RecordedOutcome) => bySeq.get(row.seq)!.outcome.kind === 'succeeded';
  const settled = await settleItemHolds(
    tx,
    held.map((row) => {
      const { requestId, outcome } = bySeq.get(row.seq)!;
      return { reservationId: row.reservationId, requestId, settle: succeeded(row) ? { chargedMicro: outcome.chargedMicro, engine: outcome.engine } : null };
    }),
  );
  const cleared = new Set(held.filter((row) => succeeded(row) && !settled.has(row.reservationId)).map((row) => row.seq));
  await clearItemCharges(tx, target.jobId, [...cleared]);
  for (const row of recorded) await bySeq.get(row.seq)!.afterSettle?.();
  const failed = recorded.some((row) => bySeq.get(row.seq)!.outcome.kind === 'failed');
  if (failed) await checkFailureThreshold(tx, target.jobId, target.releaseDelayMs);
  if (failed || mayEnd(job, recorded.length, recorded.filter((row) => bySeq.get(row.seq)!.outcome.kind === 'retry').length)) {
    await finalizeJob(tx, target.jobId, target.releaseDelayMs);
  }
  return new Map(recorded.map((row) => [row.seq, succeeded(row) && !cleared.has(row.seq) ? bySeq.get(row.seq)!.outcome.chargedMicro : 0]));
}

/**
 * Whether finalizeJob could move the job after `finished` of its running items left (`requeued` of them
 * back to the queue). The job row was locked before the items changed, so its totals then plus this
 * change are its totals now (the triggers move them by exactly that): a running job with work left is
 * not read again.
 */
function mayEnd(job: JobRow, finished: number, requeued: number): boolean {
  if (finished === 0) return false;
  if (job.status !== 'queued' && job.status !== 'running') return true;
  return !job.open && Number(job.items_queued) + requeued === 0 && Number(job.items_running) - finished === 0;
}

/** `failure_threshold` failed items abort the job: it fails at once and its queued items are cancelled. */
async function checkFailureThreshold(tx: Queryable, jobId: string, releaseDelayMs: number): Promise<void> {
  const job = await lockJob(tx, jobId);
  if (!job || job.failure_threshold === null || (job.status !== 'queued' && job.status !== 'running')) return;
  if (Number(job.items_failed) < Number(job.failure_threshold)) return;
  await cancelQueuedItems(tx, jobId, releaseDelayMs);
  await updateJob(tx, jobId, {
    status: 'failed',
    open: false,
    finished_at: new Date(),
    error_code: FAILURE_THRESHOLD_CODE,
    error_message: `${job.failure_threshold} items failed, reaching failure_threshold; the job was aborted`,
  });
  await notifyFinished(tx, jobId);
}

/**
 * Moves an active job to its end when nothing is left to run: `cancelling` -> `cancelled` once no item
 * is running; a closed job with no queued or running item -> `completed`. Open jobs never complete.
 * The job row is read (again) here: its totals moved with every item this transaction wrote.
 */
export async function finalizeJob(tx: Queryable, jobId: string, releaseDelayMs: number): Promise<void> {
  const job = await lockJob(tx, jobId);
  if (!job) return;
  const queued = Number(job.items_queued);
  const running = Number(job.items_running);
  if (job.status === 'cancelling') {
    if (queued > 0) await cancelQueuedItems(tx, jobId, releaseDelayMs);
    if (running > 0) return;
    await updateJob(tx, jobId, { status: 'cancelled', open: false, finished_at: new Date() });
  } else if ((job.status === 'queued' || job.status === 'running') && !job.open && queued === 0 && running === 0) {
    await updateJob(tx, jobId, { status: 'completed', finished_at: new Date() });
  } else {
    return;
  }
  await notifyFinished(tx, jobId);
}

/** Events rule 1: the job object goes to the job's webhook endpoint, queued in the same transaction. */
async function notifyFinished(tx: Queryable, jobId: string): Promise<void> {
  const job = await getJobById(tx, jobId);
  if (!job || job.webhook_endpoint_id === null) return;
  const payload = JSON.stringify(await jobObjectOf(tx, job));
  await enqueueDelivery(tx, { endpointId: job.webhook_endpoint_id, jobId, event: WEBHOOK_EVENT, payload });
}

/**
 * A crashed dispatcher's item: back to the queue (the attempt counts), or failed when none are left.
 * Job first, then the item (re-checked under its lock: it may have finished meanwhile).
 */
export async function requeueExpired(tx: Queryable, item: { job_id: string; seq: number }, releaseDelayMs: number): Promise<void> {
  const job = await lockJob(tx, item.job_id);
  if (!job) return;
  const expired = await lockExpiredItem(tx, item.job_id, item.seq);
  if (!expired) return;
  const status = expiredItemStatus(job, expired.attempts);
  await endExpiredItem(tx, item.job_id, item.seq, status, releaseDelayMs);
  if (status === 'failed') await checkFailureThreshold(tx, item.job_id, releaseDelayMs);
  await finalizeJob(tx, item.job_id, releaseDelayMs);
}

function expiredItemStatus(job: JobRow, attempts: number): 'queued' | 'failed' | 'cancelled' {
  const active = job.status === 'queued' || job.status === 'running' || job.status === 'paused';
  if (!active) return 'cancelled';
  return attempts >= job.max_attempts ? 'failed' : 'queued';
}

/**
 * Returns one due hold at 0, once: under the item's lock the item must still be due and still hold
 * this reservation. A retry that took the item back (and kept the hold) meanwhile wins; the hold then
 * pays for the re-run instead of being returned.
 */
export async function returnDueHold(tx: Queryable, due: { job_id: string; seq: number; reservation_id: string | null }): Promise<boolean> {
  if (!(await lockDueRelease(tx, due.job_id, due.seq, due.reservation_id))) return false;
  if (due.reservation_id !== null) await settleStored(tx, { holdId: due.reservation_id, chargedMicro: 0, engine: null, leaseHolder: null });
  await clearRelease(tx, due.job_id, due.seq);
  return true;
}
