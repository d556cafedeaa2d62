import { getDomain } from 'tldts';
import type { CrawlRules } from './crawl-rules.js';

/**
 * Whether a link is on the crawl's site: the seed's host (after `www.` is set aside on both sides),
 * any host of the seed's registrable domain with `allow_subdomains`, anything with `allow_external`.
 */
export function onSite(link: URL, seed: URL, rules: Pick<CrawlRules, 'allow_subdomains' | 'allow_external'>): boolean {
  if (rules.allow_external) return true;
  const host = withoutWww(link.hostname);
  const seedHost = withoutWww(seed.hostname);
  if (host === seedHost) return true;
  if (!rules.allow_subdomains) return false;
  const domain = getDomain(seed.hostname);
  return domain !== null && getDomain(link.hostname) === domain;
}

function withoutWww(host: string): string {
  return host.toLowerCase().replace(/^www\./, '');
}
