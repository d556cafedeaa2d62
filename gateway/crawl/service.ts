import { z } from 'zod';
import { ServiceError } from '../../lib/errors/index.js';
import { CrawlRulesSchema, type CrawlRules } from '../../lib/crawl/crawl-rules.js';
import { invalidParameter } from '../../lib/scrape/issues.js';
import { countCrawlSkips, insertCrawl, insertCrawlPages, type CrawlPage } from '../../lib/store/crawl.js';
import { updateJob, type JobRow } from '../../lib/store/batch/jobs.js';
import { storeRobotsOfOrigin } from '../../lib/store/crawl-hosts.js';
import type { Principal } from '../auth/key-resolver.js';
import { createJob } from '../batch/service.js';
import { MAX_ITEMS_PER_CALL, RunControlsSchema } from '../batch/submission.js';
import type { GatewayContext } from '../context.js';
import { addSkips, sortLinks } from './link-filter.js';
import { surveySite } from './site-survey.js';

const { name, concurrency, priority, max_attempts, credit_budget, webhook_endpoint_id } = RunControlsSchema.shape;

/** The body of POST /v1/crawl: seed, rules, run controls of a batch, and `scrape` (every page's parameters). */
export const CrawlBodySchema = CrawlRulesSchema.extend({
  url: z.string({ error: 'must be a string' }),
  scrape: z.record(z.string(), z.unknown()).default({}),
  name, concurrency, priority, max_attempts, credit_budget, webhook_endpoint_id,
});

/**
 * POST /v1/crawl: robots.txt and sitemaps are read first (from the gateway, through the egress
 * policy), then a batch job is created with the seed and the sitemap's pages as its items, in the
 * same transaction as the crawl's rows. Discovered links are added by the item that found them
 * (gateway/crawl/discovery.ts).
 */
export async function createCrawl(context: GatewayContext, principal: Principal, body: unknown): Promise<{ job: JobRow; warnings: string[] }> {
  const parsed = CrawlBodySchema.safeParse(body);
  if (!parsed.success) throw invalidParameter(parsed.error);
  const { url, scrape, name: label, concurrency: slots, priority: rank, max_attempts: attempts, credit_budget: budget, webhook_endpoint_id: webhook, ...ruleFields } = parsed.data;
  const rules: CrawlRules = ruleFields;
  if ('url' in scrape) throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', 'scrape.url: the crawl sends every page its own url; set the seed as url');
  return surveySite(context.egressPolicy, url, rules, rules.limit, async ({ seedKey, robots, fromSitemaps, filter, addRobotsFor, otherRobots }) => {
    // Sitemap pages count as one link from the seed.
    await addRobotsFor(fromSitemaps, 1);
    const found = sortLinks(fromSitemaps, 1, filter);
    const keys = [seedKey, ...found.keys.filter((key) => key !== seedKey)].slice(0, Math.min(rules.limit, MAX_ITEMS_PER_CALL));
    const taken = new Set(keys);
    addSkips(found.skips, 'limit@1', found.keys.filter((key) => !taken.has(key)));
    const submission = {
      ...scrape,
      urls: keys,
      // Open while created so that no budget is fixed from the first items; closed to callers' appends in the same transaction.
      open: true,
      name: label, concurrency: slots, priority: rank, max_attempts: attempts, credit_budget: budget, webhook_endpoint_id: webhook,
    };
    return await createJob(context, principal, submission, async (tx, jobId, items) => {
      await updateJob(tx, jobId, { open: false, kind: 'crawl' });
      await insertCrawl(tx, {
        job_id: jobId, seed_url: seedKey, rules, robots_txt: robots?.text ?? null, robots_unreachable: robots?.unreachable ?? false,
        item_hold_micro: items[0].holdMicro, stopped_reason: null,
      });
      await insertCrawlPages(tx, jobId, keys.map((key, seq): CrawlPage => ({ urlKey: key, seq, depth: seq === 0 ? 0 : 1 })));
      await countCrawlSkips(tx, jobId, found.skips);
      for (const [origin, answer] of otherRobots) await storeRobotsOfOrigin(tx, jobId, origin, answer);
    });
  });
}
