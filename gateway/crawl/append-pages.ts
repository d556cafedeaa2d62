import { ServiceError } from '../../lib/errors/index.js';
import { ledgerAllowanceMicro } from '../../lib/billing/allowance.js';
import { holdBatchItemsThatFit } from '../../lib/billing/batch-holds.js';
import { insertItems } from '../../lib/store/batch/items.js';
import { getJob, TERMINAL_JOB_STATUSES, updateJob } from '../../lib/store/batch/jobs.js';
import { countCrawlSkips, crawlStopReason, insertCrawlPages, knownCrawlPages, organizationAllowance, skipKey, stopCrawl, type CrawlRow } from '../../lib/store/crawl.js';
import type { Db, Queryable } from '../../lib/store/db.js';
import { asError, GroupCommit, type GroupOutcome } from '../../lib/store/group-commit.js';
import type { Ledger } from '../../lib/billing/ledger.js';
import { addSkips, type Candidates } from './link-filter.js';

/** One scraped page's links, sorted by the crawl's rules at link depth `depth`, to be queued. */
export interface PageLinks {
  crawl: CrawlRow;
  projectId: string;
  /** The item whose page these links are on (each queued page's `parent_seq`). */
  parentSeq: number;
  found: Candidates;
  depth: number;
  /** What each of its links is held at when queued (the job's price from scrape/plan-and-price.ts). */
  holdMicro: number;
}

export interface AppendDeps {
  db: Db;
  ledger: Ledger;
  testMonthlyCredits: number;
}

/** Per store handle (a dispatcher's), per job: the pages waiting to be appended together. */
const appenders = new WeakMap<Db, Map<string, GroupCommit<PageLinks, boolean>>>();

/**
 * Queues a page's links (docs/crawl.md "Discovery"): pages of one job that finish while another
 * page's links are being written go together in the next transaction, one job lock and a handful of
 * statements for the whole group instead of per page. Answers whether any link was queued. A group
 * the store refuses is written again one page at a time, so one page's failure stays its own.
 */
export function appendPageLinks(deps: AppendDeps, page: PageLinks): Promise<boolean> {
  let byJob = appenders.get(deps.db);
  if (!byJob) appenders.set(deps.db, (byJob = new Map()));
  const jobId = page.crawl.job_id;
  let commit = byJob.get(jobId);
  if (!commit) byJob.set(jobId, (commit = new GroupCommit((group) => writeGroup(deps, group), { startAfterIo: true })));
  const appender = commit;
  return appender.submit(page).finally(() => {
    if (appender.idle && byJob.get(jobId) === appender) byJob.delete(jobId);
  });
}

async function writeGroup(deps: AppendDeps, group: PageLinks[]): Promise<Array<GroupOutcome<boolean>>> {
  try {
    return await deps.db.transaction((tx) => appendPages(tx, deps, group));
  } catch (error) {
    if (group.length === 1) return [asError(error)];
  }
  const outcomes: Array<GroupOutcome<boolean>> = [];
  for (const page of group) {
    try {
      outcomes.push(...(await deps.db.transaction((tx) => appendPages(tx, deps, [page]))));
    } catch (error) {
      outcomes.push(asError(error));
    }
  }
  return outcomes;
}

interface Planned {
  page: PageLinks;
  /** The page's own skips plus those decided here (a copy: a group written again starts from the page's). */
  skips: Map<string, string[]>;
  queued: string[];
}

/**
 * The pages' links as new items, in one transaction under the job's lock, page after page in the
 * order they came: a link an earlier page of the group queued is a `duplicate` for the later ones,
 * the limit is shared out in that order, and the allowance holds the first links that fit (the
 * crawl stops at the first that does not). Every page of the group belongs to the same crawl.
 */
async function appendPages(tx: Queryable, deps: AppendDeps, pages: PageLinks[]): Promise<boolean[]> {
  const { crawl, projectId } = pages[0];
  const jobId = crawl.job_id;
  const job = await getJob(tx, jobId, projectId, true);
  if (!job || TERMINAL_JOB_STATUSES.includes(job.status) || job.status === 'cancelling') {
    await countCrawlSkips(tx, jobId, mergedSkips(pages.map(({ found, depth }) => {
      const skips = new Map(found.skips);
      addSkips(skips, skipKey('cancelled', depth), found.keys);
      return skips;
    })));
    return pages.map(() => false);
  }
  const known = await knownCrawlPages(tx, jobId, [...new Set(pages.flatMap((page) => page.found.keys))]);
  const total = Number(job.total_items);
  let room = Math.max(0, crawl.rules.limit - total);
  const planned: Planned[] = pages.map((page) => {
    const skips = new Map(page.found.skips);
    const fresh = page.found.keys.filter((key) => !known.has(key));
    addSkips(skips, skipKey('duplicate', page.depth), page.found.keys.filter((key) => known.has(key)));
    const queued = fresh.slice(0, room);
    room -= queued.length;
    addSkips(skips, skipKey('limit', page.depth), fresh.slice(queued.length));
    for (const key of queued) known.add(key);
    return { page, skips, queued };
  });
  const reservations = await holdPages(tx, deps, job, crawl, planned);
  const items = planned.flatMap(({ page, queued }) => queued.map((urlKey) => ({ urlKey, depth: page.depth, holdMicro: page.holdMicro, parentSeq: page.parentSeq })));
  await insertCrawlPages(tx, jobId, items.map((item, index) => ({ urlKey: item.urlKey, seq: total + index, depth: item.depth, parentSeq: item.parentSeq })));
  await insertItems(tx, jobId, items.map((item, index) => ({
    seq: total + index, url: item.urlKey, external_id: null, overrides: {}, hold_micro: item.holdMicro, reservation_id: reservations[index],
  })));
  if (items.length > 0) await updateJob(tx, jobId, { total_items: total + items.length });
  await countCrawlSkips(tx, jobId, mergedSkips(planned.map((plan) => plan.skips)));
  return planned.map((plan) => plan.queued.length > 0);
}

/**
 * Holds the planned pages' items on the job's allowance, first ones first; those past the first that
 * does not fit (or all, once the crawl has stopped) move to the `credits` skips. Answers the hold ids
 * of the items kept, in order.
 */
async function holdPages(tx: Queryable, deps: AppendDeps, job: { organization_id: string; project_id: string; environment: string }, crawl: CrawlRow, planned: Planned[]): Promise<string[]> {
  if (planned.every((plan) => plan.queued.length === 0)) return [];
  let kept = 0;
  let holdIds: string[] = [];
  if ((await crawlStopReason(tx, crawl.job_id)) === null) {
    const amounts = planned.flatMap((plan) => plan.queued.map(() => plan.page.holdMicro));
    const held = await holdBatchItemsThatFit(tx, deps.ledger, await jobAccount(tx, job, deps.testMonthlyCredits), amounts);
    holdIds = held.holdIds;
    kept = holdIds.length;
    if (held.refusal) await stopCrawl(tx, crawl.job_id, `credits: ${held.refusal.detail ?? 'the monthly credit allowance cannot hold more pages'}`);
  }
  for (const plan of planned) {
    const keep = Math.min(kept, plan.queued.length);
    kept -= keep;
    addSkips(plan.skips, skipKey('credits', plan.page.depth), plan.queued.slice(keep));
    plan.queued = plan.queued.slice(0, keep);
  }
  return holdIds;
}

/** The skips of several pages as one count: a URL in more than one counts under the first (as one page after the other would). */
function mergedSkips(all: Array<Map<string, string[]>>): Map<string, string[]> {
  const merged = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const skips of all) {
    for (const [key, urls] of skips) {
      const fresh = urls.filter((url) => !seen.has(url));
      for (const url of fresh) seen.add(url);
      addSkips(merged, key, fresh);
    }
  }
  return merged;
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
