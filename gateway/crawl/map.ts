import { z } from 'zod';
import { CrawlRulesSchema } from '../../lib/crawl/crawl-rules.js';
import { invalidParameter } from '../../lib/scrape/issues.js';
import type { GatewayContext } from '../context.js';
import { sortLinks } from './link-filter.js';
import { surveySite } from './site-survey.js';
import { pageLinks } from '../../lib/crawl/links.js';

const MAX_MAP_LIMIT = 30_000;
const MAX_SEED_BYTES = 5 * 1024 * 1024;

const { include_paths, exclude_paths, allow_subdomains, allow_external, ignore_query_parameters, sitemap, ignore_robots_txt } = CrawlRulesSchema.shape;

export const MapBodySchema = z.strictObject({
  url: z.string({ error: 'must be a string' }),
  search: z.string().max(512).optional(),
  limit: z.number().int().min(1).max(MAX_MAP_LIMIT).default(5000),
  include_paths, exclude_paths, allow_subdomains, allow_external, ignore_query_parameters, sitemap, ignore_robots_txt,
});

/**
 * POST /v1/map: the site's URLs from its sitemaps (those robots.txt names, and /sitemap.xml) and the
 * seed page's links, filtered by the crawl rules, then by `search` (case-insensitive substring of the
 * URL), normalised and de-duplicated, at most `limit`. The seed page is fetched by the gateway like a
 * sitemap (plain HTTP, no engine): no credits are charged (docs/crawl.md "Map").
 */
export async function mapSite(context: GatewayContext, body: unknown): Promise<{ links: string[] }> {
  const parsed = MapBodySchema.safeParse(body);
  if (!parsed.success) throw invalidParameter(parsed.error);
  const { url, search, limit, ...rest } = parsed.data;
  const rules = { ...CrawlRulesSchema.parse({}), ...rest, max_depth: 1, limit };
  return surveySite(context.egressPolicy, url, rules, MAX_MAP_LIMIT, async ({ seedKey, fromSitemaps, filter, fetcher, addRobotsFor }) => {
    const found = [...fromSitemaps];
    if (rules.sitemap !== 'only') {
      const page = await fetcher.get(seedKey, MAX_SEED_BYTES);
      if (Buffer.isBuffer(page)) found.push(...pageLinks(page.toString('utf8'), seedKey));
    }
    const needle = search?.toLowerCase();
    await addRobotsFor(found, 1);
    const keys = sortLinks([seedKey, ...found], 1, filter).keys.filter((key) => needle === undefined || key.toLowerCase().includes(needle));
    return { links: keys.slice(0, limit) };
  });
}
