import type { Queryable } from '../db.js';

/** Batch items not finished yet, across every tenant: what the batch dispatcher still has to do. */
export interface BatchBacklog {
  queued: number;
  running: number;
  /** Batch jobs queued, running or cancelling. */
  activeJobs: number;
}

/** Reads the partial indexes on open items and active jobs only (migration 006). */
export async function readBatchBacklog(db: Queryable): Promise<BatchBacklog> {
  const items = await db.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM batch_items WHERE status IN ('queued', 'running') GROUP BY status`,
  );
  const jobs = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM batch_jobs WHERE status IN ('queued', 'running', 'cancelling')`);
  const count = (status: string) => Number(items.rows.find((row) => row.status === status)?.n ?? 0);
  return { queued: count('queued'), running: count('running'), activeJobs: Number(jobs.rows[0]?.n ?? 0) };
}
