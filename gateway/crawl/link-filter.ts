import { checkTargetUrl, type EgressPolicy } from '../../lib/egress/policy.js';
import { normalizeUrl } from '../../lib/crawl/normalize.js';
import { pathAllowed } from '../../lib/crawl/path-patterns.js';
import { robotsRules, type RobotsRules } from '../../lib/crawl/robots.js';
import type { CrawlRules, SkipReason } from '../../lib/crawl/crawl-rules.js';
import { onSite } from '../../lib/crawl/scope.js';
import { skipKey } from '../../lib/store/crawl.js';

/** One origin's robots.txt as a crawl obeys it: `unreachable` (5xx, no answer) disallows everything. */
export interface OriginRobots {
  rules: RobotsRules;
  unreachable: boolean;
}

export interface LinkFilter {
  rules: CrawlRules;
  seed: URL;
  /** robots.txt by origin (the seed's and those read so far); empty with `ignore_robots_txt`. */
  robots: Map<string, OriginRobots>;
  egressPolicy: EgressPolicy;
}

export function linkFilterOf(crawl: { seed_url: string; rules: CrawlRules; robots_txt: string | null; robots_unreachable: boolean }, egressPolicy: EgressPolicy): LinkFilter {
  const seed = new URL(crawl.seed_url);
  const robots = new Map<string, OriginRobots>();
  if (!crawl.rules.ignore_robots_txt) robots.set(seed.origin, originRobots(seed.origin, crawl.robots_txt, crawl.robots_unreachable));
  return { rules: crawl.rules, seed, robots, egressPolicy };
}

export function originRobots(origin: string, text: string | null, unreachable: boolean): OriginRobots {
  return { rules: robotsRules(`${origin}/robots.txt`, text), unreachable };
}

/**
 * The origins of these links whose robots.txt the filter lacks and would need to decide (links that
 * pass every earlier rule: blocked address, off-site, pattern, depth). None with `ignore_robots_txt`.
 */
export function originsWithoutRobots(links: readonly string[], depth: number, filter: LinkFilter): string[] {
  if (filter.rules.ignore_robots_txt) return [];
  const origins = new Set<string>();
  for (const link of links) {
    const key = normalizeUrl(link, undefined, filter.rules.ignore_query_parameters);
    if (key === null) continue;
    const url = new URL(key);
    if (!filter.robots.has(url.origin) && ruleBeforeRobots(url, depth, filter) === null) origins.add(url.origin);
  }
  return [...origins];
}

export interface Candidates {
  /** Normalised URLs that passed every rule, in the order found, each once. */
  keys: string[];
  /** Skipped normalised URLs by `reason@depth`. */
  skips: Map<string, string[]>;
}

/**
 * Sorts found links (at crawl depth `depth`) into candidates and skips. Order of the checks, first
 * match counted: blocked address, off-site, pattern, depth, robots (of the link's own origin; the
 * caller has put every origin `originsWithoutRobots` named into the filter). Links that are not http(s) URLs
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
  const earlier = ruleBeforeRobots(url, depth, filter);
  if (earlier) return earlier;
  const robots = filter.robots.get(url.origin);
  if (robots && (robots.unreachable || !robots.rules.allowed(url.href))) return 'robots';
  return null;
}

/** Depth is checked before robots.txt so that no host's robots.txt is read for links that would not be followed anyway. */
function ruleBeforeRobots(url: URL, depth: number, filter: LinkFilter): SkipReason | null {
  try {
    checkTargetUrl(url.href, filter.egressPolicy);
  } catch {
    return 'blocked_address';
  }
  if (!onSite(url, filter.seed, filter.rules)) return 'off_site';
  if (pathAllowed(url.pathname, filter.rules.include_paths, filter.rules.exclude_paths)) return 'pattern';
  if (depth > filter.rules.max_depth) return 'depth';
  return null;
}

export function addSkips(skips: Map<string, string[]>, key: string, urls: string[]): void {
  if (urls.length > 0) skips.set(key, [...(skips.get(key) ?? []), ...urls]);
}
