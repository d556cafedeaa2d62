import type { Queryable } from '../db.js';

export const JOB_STATUSES = ['queued', 'running', 'paused', 'cancelling', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const JOB_KINDS = ['batch', 'crawl'] as const;
export type JobKind = (typeof JOB_KINDS)[number];
export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

interface JobFields {
  id: string;
  organization_id: string;
  project_id: string;
  /** `crawl` for a crawl's job (docs/crawl.md), set in its creating transaction; else `batch`. */
  kind: JobKind;
  environment: 'live' | 'test';
  name: string | null;
  status: JobStatus;
  open: boolean;
  /** As shown: secrets redacted; they are in `sealed_params` (lib/store/batch/sealed-params.ts). */
  params: Record<string, unknown>;
  sealed_params: string | null;
  project_defaults: Record<string, unknown>;
  credit_budget_micro: number | null;
  concurrency: number;
  priority: number;
  max_attempts: number;
  failure_threshold: number | null;
  estimated_credits_micro: number;
  webhook_endpoint_id: string | null;
  total_items: number;
  submitted_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  cancel_requested_at: Date | null;
  results_expire_at: Date;
  results_purged: boolean;
  error_code: string | null;
  error_message: string | null;
}

/**
 * A job's item totals, kept on its row by triggers on batch_items (migration 014): they always equal a
 * count of its items in the same transaction (docs/batch.md "Job totals").
 */
export interface JobTotals {
  items_queued: number;
  items_running: number;
  items_succeeded: number;
  items_failed: number;
  items_cancelled: number;
  items_skipped: number;
  items_charged_micro: number;
  /** Holds of the items running now. */
  items_running_hold_micro: number;
  items_bytes: number;
}

export type JobRow = JobFields & JobTotals;

export type NewJob = Omit<JobFields, 'kind' | 'status' | 'started_at' | 'finished_at' | 'cancel_requested_at' | 'results_purged' | 'error_code' | 'error_message'>;

/** The totals of one job, read under the caller's transaction; zeros for a job that does not exist. */
export async function readJobTotals(db: Queryable, jobId: string): Promise<JobTotals> {
  const result = await db.query<JobTotals>(
    `SELECT items_queued, items_running, items_succeeded, items_failed, items_cancelled, items_skipped,
            items_charged_micro, items_running_hold_micro, items_bytes FROM batch_jobs WHERE id = $1`,
    [jobId],
  );
  return result.rows[0] ?? NO_TOTALS;
}

const NO_TOTALS: JobTotals = {
  items_queued: 0,
  items_running: 0,
  items_succeeded: 0,
  items_failed: 0,
  items_cancelled: 0,
  items_skipped: 0,
  items_charged_micro: 0,
  items_running_hold_micro: 0,
  items_bytes: 0,
};

export async function insertJob(db: Queryable, job: NewJob): Promise<void> {
  await db.query(
    `INSERT INTO batch_jobs (id, organization_id, project_id, environment, name, status, open, params, sealed_params, project_defaults,
       credit_budget_micro, concurrency, priority, max_attempts, failure_threshold, estimated_credits_micro,
       webhook_endpoint_id, total_items, submitted_at, results_expire_at)
     VALUES ($1, $2, $3, $4, $5, 'queued', $6, $7::jsonb, $19, $8::jsonb, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
    [job.id, job.organization_id, job.project_id, job.environment, job.name, job.open, JSON.stringify(job.params),
      JSON.stringify(job.project_defaults), job.credit_budget_micro, job.concurrency, job.priority, job.max_attempts,
      job.failure_threshold, job.estimated_credits_micro, job.webhook_endpoint_id, job.total_items, job.submitted_at,
      job.results_expire_at, job.sealed_params],
  );
}

/** The job of this project, or null (another project's job is as absent as a missing one). */
export async function getJob(db: Queryable, id: string, projectId: string, lock = false): Promise<JobRow | null> {
  const result = await db.query<JobRow>(
    `SELECT * FROM batch_jobs WHERE id = $1 AND project_id = $2${lock ? ' FOR UPDATE' : ''}`,
    [id, projectId],
    // Unnamed outside a transaction: the create response reads the job as submitted, before the claim its wake-up starts.
    lock ? { name: 'batch_get_job_locked' } : {},
  );
  return result.rows[0] ?? null;
}

/** The job row locked FOR UPDATE: the first lock of every batch transaction (docs/batch.md "Lock order"). */
export async function lockJob(db: Queryable, id: string): Promise<JobRow | null> {
  const result = await db.query<JobRow>('SELECT * FROM batch_jobs WHERE id = $1 FOR UPDATE', [id], { name: 'batch_lock_job' });
  return result.rows[0] ?? null;
}

export async function getJobById(db: Queryable, id: string): Promise<JobRow | null> {
  const result = await db.query<JobRow>('SELECT * FROM batch_jobs WHERE id = $1', [id], { name: 'batch_job_by_id' });
  return result.rows[0] ?? null;
}

export interface JobListQuery {
  projectId: string;
  status?: JobStatus;
  before?: { at: Date; id: string };
  limit: number;
}

/** Newest first by (submitted_at, id); one row more than `limit` tells whether another page exists. */
export async function listJobs(db: Queryable, query: JobListQuery): Promise<{ jobs: JobRow[]; hasMore: boolean }> {
  const params: unknown[] = [query.projectId];
  const conditions = ['project_id = $1'];
  if (query.status) {
    params.push(query.status);
    conditions.push(`status = $${params.length}`);
  }
  if (query.before) {
    params.push(query.before.at, query.before.id);
    conditions.push(`(submitted_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::text COLLATE "C")`);
  }
  params.push(query.limit + 1);
  const result = await db.query<JobRow>(
    `SELECT * FROM batch_jobs WHERE ${conditions.join(' AND ')} ORDER BY submitted_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return { jobs: result.rows.slice(0, query.limit), hasMore: result.rows.length > query.limit };
}

export async function updateJob(db: Queryable, id: string, fields: Partial<Pick<JobRow,
  'kind' | 'status' | 'open' | 'total_items' | 'started_at' | 'finished_at' | 'cancel_requested_at' | 'error_code' | 'error_message'>>): Promise<void> {
  const entries = Object.entries(fields);
  if (entries.length === 0) return;
  const sets = entries.map(([name], index) => `${name} = $${index + 2}`);
  await db.query(`UPDATE batch_jobs SET ${sets.join(', ')} WHERE id = $1`, [id, ...entries.map(([, value]) => value)]);
}

/** Result bodies of jobs past retention are deleted; the job and its item rows stay readable. */
export async function purgeExpiredResults(db: Queryable): Promise<number> {
  const expired = await db.query<{ id: string }>(
    `UPDATE batch_jobs SET results_purged = true WHERE results_purged = false AND results_expire_at <= now() RETURNING id`,
  );
  for (const { id } of expired.rows) {
    await db.query('UPDATE batch_items SET body = NULL WHERE job_id = $1 AND body IS NOT NULL', [id]);
  }
  return expired.rowCount;
}
