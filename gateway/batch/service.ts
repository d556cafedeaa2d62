import { ServiceError } from '../../lib/errors/index.js';
import { newId } from '../../lib/ids.js';
import type { ProjectDefaults } from '../../lib/scrape/params.js';
import { holdBatchItems } from '../../lib/billing/batch-holds.js';
import { cancelQueuedItems, failedItems, insertItems, resetFailedItems, type NewItem } from '../../lib/store/batch/items.js';
import { lockFailedItems } from '../../lib/store/batch/outcomes.js';
import { getJob, insertJob, updateJob, TERMINAL_JOB_STATUSES, type JobRow } from '../../lib/store/batch/jobs.js';
import { openParams, overridesBinding, paramsBinding, sealParams } from '../../lib/store/batch/sealed-params.js';
import { getEndpoint } from '../../lib/store/batch/webhooks.js';
import type { Queryable } from '../../lib/store/db.js';
import { creditAccountOf } from '../auth/credit-account.js';
import type { Principal } from '../auth/key-resolver.js';
import type { GatewayContext } from '../context.js';
import { deploymentFor } from '../scrape/deployment.js';
import { findScrapeSession } from '../sessions/scrape-session.js';
import { signalBatchWork } from './work-signal.js';
import { effectiveConcurrency, MAX_ITEMS_PER_JOB, parseSubmission, DEFAULT_MAX_ATTEMPTS, DEFAULT_PRIORITY, type ParsedItem, type SubmissionContext } from './submission.js';

const MICRO = 1_000_000;

/**
 * What items are validated and priced against. A top-level `session_id` is looked up first (404/410
 * before anything is held): its engine pins every item's route.
 */
async function submissionContext(context: GatewayContext, principal: Principal, projectDefaults: ProjectDefaults, jobParams: unknown): Promise<SubmissionContext> {
  const sessionId = sessionIdOf(jobParams);
  const session = sessionId === null ? undefined : await findScrapeSession(context.db, sessionId, principal.organization.id);
  return { projectDefaults, egressPolicy: context.egressPolicy, deployment: deploymentFor(context, principal), session };
}

/** A string `session_id` at the top level; any other value is left for parameter validation to refuse. */
function sessionIdOf(jobParams: unknown): string | null {
  if (typeof jobParams !== 'object' || jobParams === null) return null;
  const value = (jobParams as Record<string, unknown>).session_id;
  return typeof value === 'string' ? value : null;
}

/**
 * POST /v1/batch: validate and route every item, hold every item's dearest cost (402 and nothing is
 * created when the allowance cannot), then write job and items in one transaction, all queued.
 */
export async function createJob(
  context: GatewayContext,
  principal: Principal,
  body: unknown,
  /** Runs in the creating transaction after the items are written (a crawl's own rows: gateway/crawl/service.ts). */
  alsoWrite?: (tx: Queryable, jobId: string, items: ParsedItem[]) => Promise<void>,
): Promise<{ job: JobRow; warnings: string[] }> {
  const projectDefaults = principal.project.defaults as ProjectDefaults;
  const submission = parseSubmission(body, await submissionContext(context, principal, projectDefaults, body));
  const { controls, items } = submission;
  const webhookId = controls.webhook_endpoint_id?.trim() ? controls.webhook_endpoint_id.trim() : null;
  if (webhookId !== null && (await getEndpoint(context.db, webhookId, principal.organization.id)) === null) {
    throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `webhook_endpoint_id: no webhook endpoint ${webhookId} in this organization`);
  }
  const { concurrency, warning } = effectiveConcurrency(controls.concurrency, sessionIdOf(submission.jobParams));
  const estimated = items.reduce((sum, item) => sum + item.holdMicro, 0);
  const open = controls.open ?? false;
  const budget = controls.credit_budget ? controls.credit_budget * MICRO : open ? null : estimated;
  const submittedAt = new Date();
  const id = newId();
  const params = sealParams(context.box, submission.jobParams, paramsBinding(principal.organization.id, id));
  await context.db.transaction(async (tx) => {
    const holdIds = await holdBatchItems(tx, context.ledger, creditAccountOf(context, principal), items.map((item) => item.holdMicro));
    await insertJob(tx, {
      id,
      organization_id: principal.organization.id,
      project_id: principal.project.id,
      environment: principal.key.environment,
      // An empty label is no label: the job object then has no `name`.
      name: controls.name || null,
      open,
      params: params.shown,
      sealed_params: params.sealed,
      project_defaults: projectDefaults as Record<string, unknown>,
      credit_budget_micro: budget,
      concurrency,
      priority: controls.priority ?? DEFAULT_PRIORITY,
      max_attempts: controls.max_attempts ?? DEFAULT_MAX_ATTEMPTS,
      failure_threshold: controls.failure_threshold ?? null,
      estimated_credits_micro: estimated,
      webhook_endpoint_id: webhookId,
      total_items: items.length,
      submitted_at: submittedAt,
      results_expire_at: new Date(submittedAt.getTime() + context.config.BATCH_RESULTS_RETENTION_HOURS * 3_600_000),
    });
    await insertItems(tx, id, newItems(context, items, 0, holdIds, overridesBinding(principal.organization.id, id)));
    await alsoWrite?.(tx, id, items);
  });
  signalBatchWork(context.db);
  const job = await getJob(context.db, id, principal.project.id);
  if (!job) throw new ServiceError('ERR::INTERNAL::ERROR', 'batch job vanished after creation');
  return { job, warnings: warning ? [warning] : [] };
}

/** Items as stored: overrides' secrets sealed apart (lib/store/batch/sealed-params.ts). */
function newItems(context: GatewayContext, items: ParsedItem[], firstSeq: number, holdIds: string[], binding: string): NewItem[] {
  return items.map((item, index) => ({
    seq: firstSeq + index,
    url: item.url,
    external_id: item.external_id,
    ...sealedOverrides(context, item.overrides, binding),
    hold_micro: item.holdMicro,
    reservation_id: holdIds[index],
  }));
}

function sealedOverrides(context: GatewayContext, overrides: Record<string, unknown>, binding: string): { overrides: Record<string, unknown>; sealed_overrides: string } {
  const { shown, sealed } = sealParams(context.box, overrides, binding);
  return { overrides: shown, sealed_overrides: sealed };
}

/**
 * POST /v1/batch/{id}/items: the new items run with the job's stored parameters plus their own
 * overrides; run controls in the body are accepted and ignored. Held like submitted items (402 adds nothing).
 */
export async function appendItems(context: GatewayContext, principal: Principal, jobId: string, body: unknown): Promise<{ job: JobRow; added: number; costMicro: number }> {
  const existing = await requireJob(context, principal, jobId);
  const jobParams = openParams(context.box, existing.params, existing.sealed_params, paramsBinding(existing.organization_id, existing.id));
  const items = await submissionContext(context, principal, existing.project_defaults as ProjectDefaults, jobParams);
  const submission = parseSubmission(body, items, jobParams);
  const costMicro = submission.items.reduce((sum, item) => sum + item.holdMicro, 0);
  await context.db.transaction(async (tx) => {
    const job = await getJob(tx, jobId, principal.project.id, true);
    if (!job) throw notFound(jobId);
    if (!job.open || TERMINAL_JOB_STATUSES.includes(job.status) || job.status === 'cancelling') {
      throw new ServiceError('ERR::REQUEST::CONFLICT', `batch job ${jobId} is closed; items cannot be added`);
    }
    const total = Number(job.total_items) + submission.items.length;
    if (total > MAX_ITEMS_PER_JOB) {
      throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `a job holds at most ${MAX_ITEMS_PER_JOB} items; this one has ${job.total_items}`);
    }
    // The job's ledger, whichever key appends: a test key never pays for a live job's items, nor the reverse.
    const holdIds = await holdBatchItems(tx, context.ledger, creditAccountOf(context, principal, job.environment), submission.items.map((item) => item.holdMicro));
    await insertItems(tx, jobId, newItems(context, submission.items, Number(job.total_items), holdIds, overridesBinding(job.organization_id, jobId)));
    await updateJob(tx, jobId, { total_items: total });
  });
  signalBatchWork(context.db);
  return { job: await requireJob(context, principal, jobId), added: submission.items.length, costMicro };
}

/** POST .../cancel: 202 into `cancelling` (queued items cancelled now, running ones finish); 409 when terminal. */
export async function cancelJob(context: GatewayContext, principal: Principal, jobId: string): Promise<JobRow> {
  await context.db.transaction(async (tx) => {
    const job = await getJob(tx, jobId, principal.project.id, true);
    if (!job) throw notFound(jobId);
    if (TERMINAL_JOB_STATUSES.includes(job.status)) {
      throw new ServiceError('ERR::REQUEST::CONFLICT', `batch job ${jobId} is already ${job.status}`);
    }
    if (job.status === 'cancelling') return;
    await cancelQueuedItems(tx, jobId, context.config.BATCH_HOLD_RETURN_DELAY_MS);
    // A cancelled job takes no more items: it is no longer open.
    await updateJob(tx, jobId, { status: 'cancelling', open: false, cancel_requested_at: new Date() });
  });
  return requireJob(context, principal, jobId);
}

/** POST .../close: idempotent; a drained closed job completes on the dispatcher's next pass. */
export async function closeJob(context: GatewayContext, principal: Principal, jobId: string): Promise<JobRow> {
  const job = await requireJob(context, principal, jobId);
  if (job.open) await updateJob(context.db, jobId, { open: false });
  return requireJob(context, principal, jobId);
}

/**
 * POST .../retry: failed items back to the queue, holds re-taken first (a hold whose return is still
 * pending is kept). 402 resets nothing. A terminal job goes back to `queued`; a running one keeps running.
 */
export async function retryJob(context: GatewayContext, principal: Principal, jobId: string): Promise<{ job: JobRow; reset: number }> {
  const reset = await context.db.transaction(async (tx) => {
    const job = await getJob(tx, jobId, principal.project.id, true);
    if (!job) throw notFound(jobId);
    // Lock order (docs/batch.md): job, then its failed items, then holds. Holds are read after the
    // items are locked, so a hold return that committed first is seen as returned.
    await lockFailedItems(tx, jobId);
    const failed = await failedItems(tx, jobId);
    if (failed.length === 0) return 0;
    if (job.status === 'cancelling') {
      throw new ServiceError('ERR::REQUEST::CONFLICT', `batch job ${jobId} is cancelling; retry after it is cancelled`);
    }
    const toHold = failed.filter((item) => !item.hold_open || item.reservation_id === null);
    const fresh = await holdBatchItems(tx, context.ledger, creditAccountOf(context, principal, job.environment), toHold.map((item) => Number(item.hold_micro)));
    const freshBySeq = new Map(toHold.map((item, index) => [item.seq, fresh[index]]));
    await resetFailedItems(tx, jobId, failed.map((item) => ({ seq: item.seq, reservation_id: freshBySeq.get(item.seq) ?? item.reservation_id ?? '' })));
    if (TERMINAL_JOB_STATUSES.includes(job.status)) {
      await updateJob(tx, jobId, { status: 'queued', finished_at: null, cancel_requested_at: null, error_code: null, error_message: null });
    }
    return failed.length;
  });
  if (reset > 0) signalBatchWork(context.db);
  return { job: await requireJob(context, principal, jobId), reset };
}

export async function requireJob(context: GatewayContext, principal: Principal, jobId: string): Promise<JobRow> {
  const job = await getJob(context.db, jobId, principal.project.id);
  if (!job) throw notFound(jobId);
  return job;
}

export function notFound(jobId: string): ServiceError {
  return new ServiceError('ERR::REQUEST::NOT_FOUND', `No batch job ${jobId}`);
}
