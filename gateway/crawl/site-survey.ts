import { checkTargetUrl, type EgressPolicy } from '../../lib/egress/policy.js';
import { ServiceError } from '../../lib/errors/index.js';
import { normalizeUrl } from '../../lib/crawl/normalize.js';
import { robotsRules } from '../../lib/crawl/robots.js';
import type { CrawlRules } from '../../lib/crawl/crawl-rules.js';
import { linkFilterOf, type LinkFilter } from './link-filter.js';
import { fetchRobots, siteFetcher, sitemapPages, type RobotsFile, type SiteFetcher } from './site-files.js';
import { addOriginRobots, fetchedRobots } from './origin-robots.js';
import type { StoredRobots } from '../../lib/store/crawl-hosts.js';

export interface SiteSurvey {
  /** The seed, normalised. */
  seedKey: string;
  robots: RobotsFile | null;
  /** Pages of the sitemaps robots.txt names and of /sitemap.xml (none with `sitemap: skip`). */
  fromSitemaps: string[];
  filter: LinkFilter;
  fetcher: SiteFetcher;
  /** Reads into the filter the robots.txt of the other origins these links need (docs/crawl.md "robots.txt"). */
  addRobotsFor(links: readonly string[], depth: number): Promise<void>;
  /** robots.txt of origins other than the seed's read so far, to be stored with a crawl. */
  otherRobots: Map<string, StoredRobots>;
}

/** What a crawl or a map reads first: the seed checked, robots.txt (unless ignored), the sitemaps. */
export async function surveySite<T>(policy: EgressPolicy, url: string, rules: CrawlRules, maxSitemapPages: number, work: (survey: SiteSurvey) => Promise<T>): Promise<T> {
  const seedKey = normalizeUrl(checkTargetUrl(url, policy).href, undefined, rules.ignore_query_parameters);
  if (seedKey === null) throw new ServiceError('ERR::SECURITY::INVALID_URL', 'url is not an http or https URL');
  const seed = new URL(seedKey);
  const fetcher = siteFetcher(policy);
  try {
    const robots = rules.ignore_robots_txt ? null : await fetchRobots(fetcher, seed);
    const roots = [...(robots?.text ? robotsRules(robots.url, robots.text).sitemaps() : []), new URL('/sitemap.xml', seed).href];
    const fromSitemaps = rules.sitemap === 'skip' ? [] : await sitemapPages(fetcher, roots, maxSitemapPages);
    const filter = linkFilterOf({ seed_url: seedKey, rules, robots_txt: robots?.text ?? null, robots_unreachable: robots?.unreachable ?? false }, policy);
    const otherRobots = new Map<string, StoredRobots>();
    const fetchOne = fetchedRobots(fetcher);
    const addRobotsFor = (links: readonly string[], depth: number) => addOriginRobots(filter, links, depth, async (origin) => {
      const answer = await fetchOne(origin);
      otherRobots.set(origin, answer);
      return answer;
    });
    return await work({ seedKey, robots, fromSitemaps, filter, fetcher, addRobotsFor, otherRobots });
  } finally {
    await fetcher.close();
  }
}
