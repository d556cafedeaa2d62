import { z } from 'zod';
import { storableString } from '../validation/storable.js';

export const SITEMAP_MODES = ['include', 'skip', 'only'] as const;
export const MAX_CRAWL_LIMIT = 100_000;
const MAX_PATTERNS = 100;
const MAX_PATTERN_CHARS = 512;
/** The longest spacing between two requests to one host a crawl asks for or takes from `Crawl-delay`. */
export const MAX_HOST_DELAY_MS = 60_000;
/** As high as a batch job's `concurrency` may go. */
export const MAX_CONCURRENCY_PER_HOST = 50;

const patterns = z.array(storableString().min(1).max(MAX_PATTERN_CHARS)).max(MAX_PATTERNS);

/** The rules of a crawl, stored with it (docs/crawl.md). Names follow Firecrawl's where it has one. */
export const CrawlRulesSchema = z.strictObject({
  limit: z.number().int().min(1).max(MAX_CRAWL_LIMIT).default(100),
  max_depth: z.number().int().min(0).max(1000).default(10),
  include_paths: patterns.default([]),
  exclude_paths: patterns.default([]),
  allow_subdomains: z.boolean().default(false),
  allow_external: z.boolean().default(false),
  ignore_query_parameters: z.boolean().default(false),
  sitemap: z.enum(SITEMAP_MODES).default('include'),
  ignore_robots_txt: z.boolean().default(false),
  /** Least time between the starts of two requests to one host (Crawlee's `sameDomainDelaySecs`, in ms); robots.txt `Crawl-delay` raises it. */
  delay_ms: z.number().int().min(0).max(MAX_HOST_DELAY_MS).default(0),
  /** Requests of this crawl in flight to one host at once, across every gateway (Crawlee's `maxConcurrency` per domain); null: only `concurrency` caps them. */
  max_concurrency_per_host: z.number().int().min(1).max(MAX_CONCURRENCY_PER_HOST).nullable().default(null),
});
export type CrawlRules = z.infer<typeof CrawlRulesSchema>;

/** Why a discovered URL was not queued; the keys of `skipped` in the crawl object. */
export const SKIP_REASONS = ['robots', 'pattern', 'depth', 'limit', 'off_site', 'duplicate', 'blocked_address', 'credits', 'cancelled'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];
