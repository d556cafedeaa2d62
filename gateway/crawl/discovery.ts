import { pageLinks } from '../../lib/crawl/links.js';
import { normalizeUrl } from '../../lib/crawl/normalize.js';
import type { ScrapeSuccess } from '../../lib/protocol/index.js';
import type { ClaimedItem } from '../../lib/store/batch/leases.js';
import { claimRedirectTarget, countCrawlSkips, crawlPageDepths, skipKey, type CrawlRow } from '../../lib/store/crawl.js';
import { getJob } from '../../lib/store/batch/jobs.js';
import type { Queryable } from '../../lib/store/db.js';
import { GroupCommit, type GroupOutcome } from '../../lib/store/group-commit.js';
import type { GatewayContext } from '../context.js';
import { signalBatchWork } from '../batch/work-signal.js';
import { appendPageLinks } from './append-pages.js';
import { crawlOf } from './crawl-of-job.js';
import { linkFilterOf, sortLinks, type LinkFilter } from './link-filter.js';
import { addOriginRobots, storedRobots } from './origin-robots.js';

/** A crawl's page as known before it is fetched: its crawl and its link depth. */
export interface CrawlPage {
  crawl: CrawlRow;
  depth: number;
}

/**
 * The crawl and link depth of a claimed item, null for an item that is no crawl's page. Asked for
 * when the item starts, so the items of one claim read their depths in one statement while they are
 * fetched; a failed read fails the item when its links are sorted (the promise never rejects unheard).
 */
export function crawlPageOf(context: GatewayContext, item: ClaimedItem): Promise<CrawlPage | null> {
  const page = (async () => {
    const crawl = await crawlOf(context.db, item);
    if (!crawl) return null;
    const depth = await depthsOf(context.db).submit({ jobId: crawl.job_id, seq: item.seq });
    return depth === null ? null : { crawl, depth };
  })();
  page.catch(() => undefined);
  return page;
}

/** Per store handle: depth reads of the items started together, one statement per job. */
const depthReaders = new WeakMap<Queryable, GroupCommit<{ jobId: string; seq: number }, number | null>>();

function depthsOf(db: Queryable): GroupCommit<{ jobId: string; seq: number }, number | null> {
  let reader = depthReaders.get(db);
  if (!reader) {
    reader = new GroupCommit(async (group): Promise<Array<GroupOutcome<number | null>>> => {
      const byJob = new Map<string, Map<number, number>>();
      for (const jobId of new Set(group.map((page) => page.jobId))) {
        byJob.set(jobId, await crawlPageDepths(db, jobId, group.filter((page) => page.jobId === jobId).map((page) => page.seq)));
      }
      return group.map((page) => byJob.get(page.jobId)?.get(page.seq) ?? null);
    }, { startAfterIo: true });
    depthReaders.set(db, reader);
  }
  return reader;
}

/** One link filter per crawl row (the items of a claim share theirs): the seed's robots.txt parsed once, other origins' added as read. */
const filters = new WeakMap<CrawlRow, LinkFilter>();

function filterOf(context: GatewayContext, crawl: CrawlRow): LinkFilter {
  let filter = filters.get(crawl);
  if (!filter) filters.set(crawl, (filter = linkFilterOf(crawl, context.egressPolicy)));
  return filter;
}

/**
 * After a crawl's page was scraped, and before its result is written: its links, sorted by the
 * crawl's rules, become new items in one transaction under the job's lock, together with those of the
 * job's pages that finish meanwhile (append-pages.ts). Each is held at `holdMicro`: the page's own
 * price from the shared admission step (scrape/plan-and-price.ts), which every page of the crawl
 * shares, as its parameters differ only by url. Runs again if the item
 * runs again (a crash before its result was written): pages already queued are not queued twice.
 */
export async function discoverLinks(context: GatewayContext, item: ClaimedItem, success: ScrapeSuccess, crawlPage: Promise<CrawlPage | null>, holdMicro: number): Promise<void> {
  const page = await crawlPage;
  if (!page) return;
  const { crawl, depth } = page;
  if (await redirectedToKnownPage(context, crawl, item, success, depth)) return;
  if (crawl.rules.sitemap === 'only') return;
  const links = linksOf(success);
  if (links.length === 0) return;
  const filter = filterOf(context, crawl);
  const robots = storedRobots(context.db, context.egressPolicy, crawl.job_id);
  try {
    await addOriginRobots(filter, links, depth + 1, robots.fetchOne);
  } finally {
    await robots.close();
  }
  const found = sortLinks(links, depth + 1, filter);
  const deps = { db: context.db, ledger: context.ledger, testMonthlyCredits: context.config.TEST_MONTHLY_CREDITS };
  if (await appendPageLinks(deps, { crawl, projectId: item.job.project_id, parentSeq: item.seq, found, depth: depth + 1, holdMicro })) signalBatchWork(context.db);
}

/**
 * The same page reached by redirect (docs/crawl.md "Redirects"): the final URL's key is recorded for
 * this item, under the job's lock like any queued page. When another item already has that page,
 * this one counts as a `duplicate` and its links are not followed a second time.
 */
async function redirectedToKnownPage({ db }: GatewayContext, crawl: CrawlRow, item: ClaimedItem, success: ScrapeSuccess, depth: number): Promise<boolean> {
  const finalKey = normalizeUrl(success.final_url, undefined, crawl.rules.ignore_query_parameters);
  if (finalKey === null || finalKey === normalizeUrl(item.url, undefined, crawl.rules.ignore_query_parameters)) return false;
  return db.transaction(async (tx) => {
    await getJob(tx, crawl.job_id, item.job.project_id, true);
    const duplicate = await claimRedirectTarget(tx, crawl.job_id, item.seq, finalKey, depth);
    if (duplicate) await countCrawlSkips(tx, crawl.job_id, new Map([[skipKey('duplicate', depth), [finalKey]]]));
    return duplicate;
  });
}

function linksOf(success: ScrapeSuccess): string[] {
  if (success.envelope?.links) return success.envelope.links;
  if (success.body_encoding === 'utf8' && /html/i.test(success.content_type)) return pageLinks(success.body, success.final_url);
  return [];
}
