import { SKIP_REASONS } from '../../lib/crawl/crawl-rules.js';
import { crawlCounts, type CrawlRow } from '../../lib/store/crawl.js';
import type { Queryable } from '../../lib/store/db.js';
import type { JobRow } from '../../lib/store/batch/jobs.js';
import { jobObjectOf } from '../batch/job-view.js';

/** The batch job object plus `crawl`: seed, rules, why it stopped early, and its pages by depth (docs/crawl.md). */
export async function crawlObject(db: Queryable, job: JobRow, crawl: CrawlRow, warnings: string[] = []): Promise<Record<string, unknown>> {
  const counts = await crawlCounts(db, job.id);
  const skipped = Object.fromEntries(SKIP_REASONS.map((reason) => [reason, 0]));
  const depths = new Map<number, { depth: number; queued: number; skipped: Record<string, number> }>();
  const atDepth = (depth: number) => {
    let row = depths.get(depth);
    if (!row) depths.set(depth, (row = { depth, queued: 0, skipped: {} }));
    return row;
  };
  for (const page of counts.pagesByDepth) atDepth(page.depth).queued = page.queued;
  for (const skip of counts.skipped) {
    skipped[skip.reason] = (skipped[skip.reason] ?? 0) + skip.count;
    const row = atDepth(skip.depth);
    row.skipped[skip.reason] = (row.skipped[skip.reason] ?? 0) + skip.count;
  }
  const queued = counts.pagesByDepth.reduce((sum, page) => sum + page.queued, 0);
  const skippedTotal = Object.values(skipped).reduce((sum, count) => sum + count, 0);
  const batchView = await jobObjectOf(db, job, warnings);
  return {
    ...batchView,
    status_url: `/v1/crawl/${job.id}`,
    crawl: {
      url: crawl.seed_url,
      rules: crawl.rules,
      robots_txt: crawl.rules.ignore_robots_txt ? 'ignored' : crawl.robots_unreachable ? 'unreachable' : crawl.robots_txt === null ? 'none' : 'obeyed',
      ...(crawl.stopped_reason ? { stopped_reason: crawl.stopped_reason } : {}),
      discovered: queued + skippedTotal,
      queued,
      skipped,
      by_depth: [...depths.values()].sort((a, b) => a.depth - b.depth),
    },
  };
}
