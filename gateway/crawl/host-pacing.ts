import { setTimeout as sleep } from 'node:timers/promises';
import { robotsRules } from '../../lib/crawl/robots.js';
import { MAX_HOST_DELAY_MS } from '../../lib/crawl/rules.js';
import type { ClaimedItem } from '../../lib/store/batch/leases.js';
import { claimHostTurn, type CrawlRow } from '../../lib/store/crawl.js';
import type { GatewayContext } from '../context.js';
import { crawlOf } from './crawl-of-job.js';

/** The seed host's robots.txt `Crawl-delay` in ms, read once per crawl row. */
const crawlDelayOf = new WeakMap<CrawlRow, number>();

/**
 * Before a crawl's page is fetched: waits for its host's turn (docs/crawl.md "Per-host delay"). The
 * spacing is `delay_ms`, raised to the seed host's robots.txt `Crawl-delay` unless robots.txt is
 * ignored; the turn is claimed in the store so it holds across gateways. Nothing for plain batch jobs.
 */
export async function awaitHostTurn(context: GatewayContext, item: ClaimedItem): Promise<void> {
  const crawl = await crawlOf(context.db, item);
  if (!crawl) return;
  let host: URL;
  try {
    host = new URL(item.url);
  } catch {
    return;
  }
  const delayMs = hostDelayMs(crawl, host);
  if (delayMs === 0) return;
  const waitMs = await claimHostTurn(context.db, crawl.job_id, host.host, delayMs);
  if (waitMs > 0) await sleep(waitMs);
}

function hostDelayMs(crawl: CrawlRow, url: URL): number {
  const asked = crawl.rules.delay_ms ?? 0;
  if (crawl.rules.ignore_robots_txt || url.origin !== new URL(crawl.seed_url).origin) return asked;
  let robotsMs = crawlDelayOf.get(crawl);
  if (robotsMs === undefined) {
    const seconds = robotsRules(new URL('/robots.txt', crawl.seed_url).href, crawl.robots_txt).crawlDelaySeconds();
    robotsMs = Math.min(MAX_HOST_DELAY_MS, Math.max(0, Math.round((Number(seconds) || 0) * 1000)));
    crawlDelayOf.set(crawl, robotsMs);
  }
  return Math.max(asked, robotsMs);
}
