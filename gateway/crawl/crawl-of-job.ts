import type { ClaimedItem } from '../../lib/store/batch/leases.js';
import { getCrawl, type CrawlRow } from '../../lib/store/crawl.js';
import type { Queryable } from '../../lib/store/db.js';

/** The items of one claim share their job row: one crawl lookup per claim and job, none for jobs that are not crawls after the first. */
const crawlOfJob = new WeakMap<ClaimedItem['job'], Promise<CrawlRow | null>>();

export function crawlOf(db: Queryable, item: ClaimedItem): Promise<CrawlRow | null> {
  let lookup = crawlOfJob.get(item.job);
  if (!lookup) crawlOfJob.set(item.job, (lookup = getCrawl(db, item.job.id)));
  return lookup;
}
