import { Command } from 'commander';
import { follow, followOptions, type FollowFlags } from './batch/command.js';
import { contextFrom, printJson, wholeNumber, withConnectionOptions, type ConnectionFlags } from './context.js';
import { addScrapeParameterOptions, scrapeParametersFrom } from './scrape/parameter-flags.js';

interface CrawlFlags extends FollowFlags {
  limit?: string;
  maxDepth?: string;
  include?: string[];
  exclude?: string[];
  allowSubdomains?: boolean;
  allowExternal?: boolean;
  ignoreQueryParameters?: boolean;
  sitemap?: string;
  ignoreRobotsTxt?: boolean;
  name?: string;
  concurrency?: string;
  creditBudget?: string;
  delayMs?: string;
  maxConcurrencyPerHost?: string;
  detach?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Flags shared by crawl and map: the crawl rules that decide which URLs belong (docs/crawl.md). */
function siteRuleOptions(command: Command): Command {
  return command
    .option('--include <pattern>', 'only paths matching this pattern (repeatable; * is a wildcard)', collect)
    .option('--exclude <pattern>', 'skip paths matching this pattern (repeatable)', collect)
    .option('--allow-subdomains', 'also follow hosts of the same registrable domain')
    .option('--allow-external', 'follow links to any host')
    .option('--ignore-query-parameters', 'drop query strings before de-duplication')
    .option('--sitemap <mode>', 'include, skip or only')
    .option('--ignore-robots-txt', 'do not read robots.txt');
}

function siteRules(flags: CrawlFlags): Record<string, unknown> {
  const rules: Record<string, unknown> = {
    include_paths: flags.include,
    exclude_paths: flags.exclude,
    allow_subdomains: flags.allowSubdomains,
    allow_external: flags.allowExternal,
    ignore_query_parameters: flags.ignoreQueryParameters,
    sitemap: flags.sitemap,
    ignore_robots_txt: flags.ignoreRobotsTxt,
  };
  return Object.fromEntries(Object.entries(rules).filter(([, value]) => value !== undefined));
}

/** `trawler crawl URL`: POST /v1/crawl, then followed like a batch job (progress line, NDJSON results). */
export function crawlCommand(): Command {
  const command = new Command('crawl')
    .description('crawl a site from one URL (a batch job whose pages are discovered), results to NDJSON')
    .argument('<url>', 'the seed URL')
    .option('--limit <n>', 'pages in all, seed included (default 100)')
    .option('--max-depth <n>', 'links followed from the seed (default 10)')
    .option('--name <name>', 'job label')
    .option('--concurrency <n>', 'pages scraped at once (1-50)')
    .option('--credit-budget <credits>', 'ceiling for the whole crawl, whole credits')
    .option('--delay-ms <ms>', 'least time between two requests to one host (robots.txt Crawl-delay raises it)')
    .option('--max-concurrency-per-host <n>', 'requests in flight to one host at once (1-50)')
    .option('--detach', 'start the crawl, print it and exit');
  siteRuleOptions(command);
  followOptions(command, 'trawler-crawl-<id>.ndjson');
  withConnectionOptions(command);
  addScrapeParameterOptions(command);
  return command.action(async (url: string, flags: CrawlFlags) => {
    const context = contextFrom(flags);
    const integer = (flag: string, value: string | undefined) => (value === undefined ? undefined : wholeNumber(flag, value, Number.MAX_SAFE_INTEGER));
    const body = Object.fromEntries(Object.entries({
      url,
      ...siteRules(flags),
      limit: integer('--limit', flags.limit),
      max_depth: integer('--max-depth', flags.maxDepth),
      name: flags.name,
      concurrency: integer('--concurrency', flags.concurrency),
      credit_budget: integer('--credit-budget', flags.creditBudget),
      delay_ms: integer('--delay-ms', flags.delayMs),
      max_concurrency_per_host: integer('--max-concurrency-per-host', flags.maxConcurrencyPerHost),
      scrape: scrapeParametersFrom(flags as unknown as Record<string, unknown>, null),
    }).filter(([, value]) => value !== undefined));
    const crawl = await context.client.json<{ id: string; total_items: number }>('POST', '/v1/crawl', { json: body, onDrop: 'never' });
    if (flags.detach) return printJson(context, crawl);
    if (!context.json) context.err.write(`trawler: crawl ${crawl.id} started with ${crawl.total_items} page(s); details: trawler crawl-status ${crawl.id}\n`);
    await follow(context, crawl.id, flags, `trawler-crawl-${crawl.id}.ndjson`, undefined, '/v1/crawl');
  });
}

/** `trawler crawl-status ID`: GET /v1/crawl/{id} (discovered, queued, skipped by reason and depth). */
export function crawlStatusCommand(): Command {
  const command = new Command('crawl-status').description('a crawl: the batch job plus discovered, queued and skipped pages').argument('<id>', 'crawl id');
  withConnectionOptions(command);
  return command.action(async (id: string, flags: ConnectionFlags) => {
    const context = contextFrom(flags);
    printJson(context, await context.client.json('GET', `/v1/crawl/${encodeURIComponent(id)}`));
  });
}

/** `trawler map URL`: POST /v1/map, one URL a line (or the JSON with --json). */
export function mapCommand(): Command {
  const command = new Command('map')
    .description("list a site's URLs from its sitemaps, robots.txt and the page's links (no credits)")
    .argument('<url>', 'the site')
    .option('--search <text>', 'only URLs containing this text')
    .option('--limit <n>', 'at most this many URLs (default 5000)');
  siteRuleOptions(command);
  withConnectionOptions(command);
  return command.action(async (url: string, flags: CrawlFlags & { search?: string }) => {
    const context = contextFrom(flags);
    const body = { url, ...siteRules(flags), ...(flags.search ? { search: flags.search } : {}), ...(flags.limit ? { limit: wholeNumber('--limit', flags.limit, 30_000) } : {}) };
    const map = await context.client.json<{ links: string[] }>('POST', '/v1/map', { json: body, onDrop: 'once' });
    if (context.json) return printJson(context, map);
    for (const link of map.links) context.out.write(`${link}\n`);
  });
}
