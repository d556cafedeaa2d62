import { ServiceError } from '../../lib/errors/index.js';
import { pageLinks } from '../../lib/crawl/links.js';
import { normalizeUrl } from '../../lib/crawl/normalize.js';
import type { ScrapeSuccess } from '../../lib/protocol/index.js';
import { holdBatchItemsThatFit } from '../../lib/billing/batch-holds.js';
import { insertItems } from '../../lib/store/batch/items.js';
import { getJob, TERMINAL_JOB_STATUSES, updateJob } from '../../lib/store/batch/jobs.js';
import type { ClaimedItem } from '../../lib/store/batch/leases.js';
import { ledgerAllowanceMicro } from '../../lib/billing/allowance.js';
import { claimRedirectTarget, countCrawlSkips, crawlPageDepth, crawlStopReason, insertCrawlPages, knownCrawlPages, organizationAllowance, skipKey, stopCrawl, type CrawlRow } from '../../lib/store/crawl.js';
import type { Queryable } from '../../lib/store/db.js';
import type { GatewayContext } from '../context.js';
import { signalBatchWork } from '../batch/work-signal.js';
import { crawlOf } from './crawl-of-job.js';
import { addSkips, linkFilterOf, sortLinks, type Candidates } from './link-filter.js';
import { addOriginRobots, storedRobots } from './origin-robots.js';

/**
 * After a crawl's page was scraped, and before its result is written: its links, sorted by the
 * crawl's rules, become new items in one transaction under the job's lock. Runs again if the item
 * runs again (a crash before its result was written): pages already queued are not queued twice.
 */
export async function discoverLinks(context: GatewayContext, item: ClaimedItem, success: ScrapeSuccess): Promise<void> {
  const crawl = await crawlOf(context.db, item);
  if (!crawl) return;
  const depth = await crawlPageDepth(context.db, crawl.job_id, item.seq);
  if (depth === null) return;
  if (await redirectedToKnownPage(context, crawl, item, success, depth)) return;
  if (crawl.rules.sitemap === 'only') return;
  const links = linksOf(success);
  if (links.length === 0) return;
  const filter = linkFilterOf(crawl, context.egressPolicy);
  const robots = storedRobots(context.db, context.egressPolicy, crawl.job_id);
  try {
    await addOriginRobots(filter, links, depth + 1, robots.fetchOne);
  } finally {
    await robots.close();
  }
  const found = sortLinks(links, depth + 1, filter);
  if (await appendPages(context, crawl, item, found, depth + 1)) signalBatchWork(context.db);
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

async function appendPages({ db, ledger, config: { TEST_MONTHLY_CREDITS: testMonthlyCredits } }: GatewayContext, crawl: CrawlRow, item: ClaimedItem, found: Candidates, depth: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    const job = await getJob(tx, crawl.job_id, item.job.project_id, true);
    if (!job || TERMINAL_JOB_STATUSES.includes(job.status) || job.status === 'cancelling') {
      addSkips(found.skips, skipKey('cancelled', depth), found.keys);
      await countCrawlSkips(tx, crawl.job_id, found.skips);
      return false;
    }
    const known = await knownCrawlPages(tx, crawl.job_id, found.keys);
    const fresh = found.keys.filter((key) => !known.has(key));
    addSkips(found.skips, skipKey('duplicate', depth), [...known]);
    const total = Number(job.total_items);
    const room = Math.max(0, crawl.rules.limit - total);
    let queued = fresh.slice(0, room);
    addSkips(found.skips, skipKey('limit', depth), fresh.slice(queued.length));
    const stopped = await crawlStopReason(tx, crawl.job_id);
    let reservations: string[] = [];
    if (stopped !== null) {
      addSkips(found.skips, skipKey('credits', depth), queued);
      queued = [];
    } else if (queued.length > 0) {
      // As many of the page's links as the allowance holds, in the order found; the crawl stops at the first that does not fit.
      const held = await holdBatchItemsThatFit(tx, ledger, await jobAccount(tx, job, testMonthlyCredits), queued.map(() => crawl.item_hold_micro));
      reservations = held.holdIds;
      if (held.refusal) {
        await stopCrawl(tx, crawl.job_id, `credits: ${held.refusal.detail ?? 'the monthly credit allowance cannot hold more pages'}`);
        addSkips(found.skips, skipKey('credits', depth), queued.slice(reservations.length));
        queued = queued.slice(0, reservations.length);
      }
    }
    await insertCrawlPages(tx, crawl.job_id, queued.map((urlKey, index) => ({ urlKey, seq: total + index, depth, parentSeq: item.seq })));
    await insertItems(tx, crawl.job_id, queued.map((url, index) => ({
      seq: total + index, url, external_id: null, overrides: {}, hold_micro: crawl.item_hold_micro, reservation_id: reservations[index],
    })));
    if (queued.length > 0) await updateJob(tx, crawl.job_id, { total_items: total + queued.length });
    await countCrawlSkips(tx, crawl.job_id, found.skips);
    return queued.length > 0;
  });
}

/** The ledger the job's holds are on (its environment's), read now: the organization's allowance may have changed since submission. */
async function jobAccount(tx: Queryable, job: { organization_id: string; project_id: string; environment: string }, testMonthlyCredits: number) {
  const organization = await organizationAllowance(tx, job.organization_id);
  if (!organization) throw new ServiceError('ERR::INTERNAL::ERROR', `organization ${job.organization_id} of crawl vanished`);
  const environment = job.environment as Parameters<typeof ledgerAllowanceMicro>[1];
  return {
    organizationId: job.organization_id,
    projectId: job.project_id,
    organizationCreatedAt: organization.created_at,
    monthlyCreditsMicro: ledgerAllowanceMicro(organization.monthly_credits_micro, environment, testMonthlyCredits),
    environment,
  };
}
