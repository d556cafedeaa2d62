import { jobProgress } from '../../lib/batch/job-progress.js';
import { MICRO_PER_CREDIT } from '../../lib/billing/prices.js';
import { redactParams } from '../../lib/scrape/redact.js';
import type { Queryable } from '../../lib/store/db.js';
import { progressOf, type Progress } from '../../lib/store/batch/items.js';
import { readJobTotals, type JobRow } from '../../lib/store/batch/jobs.js';

/** The batch job object (`BatchJob` in the API reference): required fields always; optional ones only when they have a value. */
export function jobObject(job: JobRow, progress: Progress, warnings: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = { id: job.id, project_id: job.project_id, kind: job.kind };
  if (job.name !== null) out.name = job.name;
  out.status = job.status;
  if (job.open) out.open = true;
  out.status_url = `/v1/batch/${job.id}`;
  out.results_url = `/v1/batch/${job.id}/results`;
  out.params = { ...redactParams(job.params), credit_budget_micro: job.credit_budget_micro === null ? null : Number(job.credit_budget_micro) };
  out.total_items = Number(job.total_items);
  out.concurrency = job.concurrency;
  out.priority = job.priority;
  out.max_attempts = job.max_attempts;
  if (job.failure_threshold !== null) out.failure_threshold = Number(job.failure_threshold);
  out.estimated_credits = Math.floor(Number(job.estimated_credits_micro) / MICRO_PER_CREDIT);
  out.estimated_credits_micro = Number(job.estimated_credits_micro);
  out.progress = jobProgress(progress);
  out.submitted_at = job.submitted_at.toISOString();
  if (job.started_at) out.started_at = job.started_at.toISOString();
  if (job.finished_at) out.finished_at = job.finished_at.toISOString();
  if (job.cancel_requested_at) out.cancel_requested_at = job.cancel_requested_at.toISOString();
  out.results_expire_at = job.results_expire_at.toISOString();
  if (job.error_code !== null) out.error_code = job.error_code;
  if (job.error_message !== null) out.error_message = job.error_message;
  if (warnings.length > 0) out.warnings = warnings;
  return out;
}

/** Job objects for rows just read: their totals are as current as the rest of the row. */
export function jobObjects(jobs: JobRow[]): Record<string, unknown>[] {
  return jobs.map((job) => jobObject(job, progressOf(job)));
}

/** The job object with its totals read now: `job` may have been read before its items last changed. */
export async function jobObjectOf(db: Queryable, job: JobRow, warnings: string[] = []): Promise<Record<string, unknown>> {
  return jobObject(job, progressOf(await readJobTotals(db, job.id)), warnings);
}
