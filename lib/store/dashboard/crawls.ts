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
