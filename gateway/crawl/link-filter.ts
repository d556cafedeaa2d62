import { checkTargetUrl, type EgressPolicy } from '../../lib/egress/policy.js';
import { normalizeUrl } from '../../lib/crawl/normalize.js';
import { pathAllowed } from '../../lib/crawl/path-patterns.js';
import { robotsRules, type RobotsRules } from '../../lib/crawl/robots.js';
import type { CrawlRules, SkipReason } from '../../lib/crawl/rules.js';
import { onSite } from '../../lib/crawl/scope.js';
import { skipKey } from '../../lib/store/crawl.js';

export interface LinkFilter {
  rules: CrawlRules;
  seed: URL;
  robots: RobotsRules | null;
  robotsUnreachable: boolean;
  egressPolicy: EgressPolicy;
}

export function linkFilterOf(crawl: { seed_url: string; rules: CrawlRules; robots_txt: string | null; robots_unreachable: boolean }, egressPolicy: EgressPolicy): LinkFilter {
  const seed = new URL(crawl.seed_url);
  const robots = crawl.rules.ignore_robots_txt ? null : robotsRules(new URL('/robots.txt', seed).href, crawl.robots_txt);
  return { rules: crawl.rules, seed, robots, robotsUnreachable: crawl.robots_unreachable && !crawl.rules.ignore_robots_txt, egressPolicy };
}

export interface Candidates {
  /** Normalised URLs that passed every rule, in the order found, each once. */
  keys: string[];
  /** Skipped normalised URLs by `reason@depth`. */
  skips: Map<string, string[]>;
}

/**
 * Sorts found links (at crawl depth `depth`) into candidates and skips. Order of the checks, first
 * match counted: blocked address, off-site, pattern, robots, depth. Links that are not http(s) URLs
 * (mailto:, javascript:) are not pages and are not counted.
 */
export function sortLinks(links: readonly string[], depth: number, filter: LinkFilter): Candidates {
  const seen = new Set<string>();
  const keys: string[] = [];
  const skips = new Map<string, string[]>();
  const skip = (reason: SkipReason, url: string) => addSkips(skips, skipKey(reason, depth), [url]);
  for (const link of links) {
    const key = normalizeUrl(link, undefined, filter.rules.ignore_query_parameters);
    if (key === null || seen.has(key)) continue;
    seen.add(key);
    const reason = skipReason(new URL(key), depth, filter);
    if (reason) skip(reason, key);
    else keys.push(key);
  }
  return { keys, skips };
}

function skipReason(url: URL, depth: number, filter: LinkFilter): SkipReason | null {
  try {
    checkTargetUrl(url.href, filter.egressPolicy);
  } catch {
    return 'blocked_address';
  }
  if (!onSite(url, filter.seed, filter.rules)) return 'off_site';
  if (pathAllowed(url.pathname, filter.rules.include_paths, filter.rules.exclude_paths)) return 'pattern';
  if (url.origin === filter.seed.origin && (filter.robotsUnreachable || (filter.robots !== null && !filter.robots.allowed(url.href)))) return 'robots';
  if (depth > filter.rules.max_depth) return 'depth';
  return null;
}

export function addSkips(skips: Map<string, string[]>, key: string, urls: string[]): void {
  if (urls.length > 0) skips.set(key, [...(skips.get(key) ?? []), ...urls]);
}
