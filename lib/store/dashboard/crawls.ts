import type { Queryable } from '../db.js';
import type { JobRow } from '../batch/jobs.js';

/** A crawl as the dashboard lists it: its batch job row and its seed. */
export type CrawlListRow = JobRow & { seed_url: string };

/** The newest crawls of a project (a crawl is a batch job with a crawl_jobs row; docs/crawl.md). */
export async function listProjectCrawls(db: Queryable, projectId: string, limit: number): Promise<CrawlListRow[]> {
  const result = await db.query<CrawlListRow>(
    `SELECT b.*, c.seed_url FROM batch_jobs b JOIN crawl_jobs c ON c.job_id = b.id
      WHERE b.project_id = $1 ORDER BY b.submitted_at DESC, b.id DESC LIMIT $2`,
    [projectId, limit],
  );
  return result.rows;
}

/** Of these batch job ids, the crawls (the batch list marks them and links to their crawl page). */
export async function crawlIdsAmong(db: Queryable, jobIds: string[]): Promise<Set<string>> {
  if (jobIds.length === 0) return new Set();
  const result = await db.query<{ job_id: string }>(`SELECT job_id FROM crawl_jobs WHERE job_id = ANY($1::text[])`, [jobIds]);
  return new Set(result.rows.map((row) => row.job_id));
}

/** The depth each of these items was queued at (items are pages of the crawl, by seq). */
export async function crawlPageDepths(db: Queryable, jobId: string, seqs: number[]): Promise<Map<number, number>> {
  if (seqs.length === 0) return new Map();
  const result = await db.query<{ seq: string | number; depth: number }>(`SELECT seq, depth FROM crawl_pages WHERE job_id = $1 AND seq = ANY($2::bigint[])`, [jobId, seqs]);
  return new Map(result.rows.map((row) => [Number(row.seq), Number(row.depth)]));
}
