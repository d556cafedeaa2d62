import { setTimeout as sleep } from 'node:timers/promises';
import { robotsRules } from '../../lib/crawl/robots.js';
import { MAX_HOST_DELAY_MS } from '../../lib/crawl/crawl-rules.js';
import type { ClaimedItem } from '../../lib/store/batch/leases.js';
import { claimHostTurn, type CrawlRow } from '../../lib/store/crawl.js';
import { claimHostSlot, releaseHostSlot, type SlotHolder } from '../../lib/store/crawl-hosts.js';
import type { GatewayContext } from '../context.js';
import { crawlOf } from './crawl-of-job.js';
import { knownOriginRobots } from './origin-robots.js';

/** Robots.txt `Crawl-delay` in ms by crawl row and origin, read once per claim. */
const crawlDelayOf = new WeakMap<CrawlRow, Map<string, Promise<number>>>();
/** Between two looks for a free host slot: short at first, then at most this (other gateways free slots without telling this one). */
const SLOT_POLL_MAX_MS = 250;

/** What a crawl's page holds while it is fetched; released once the scrape has answered. */
export interface HostTurn {
  release(): Promise<void>;
}

const NOTHING_HELD: HostTurn = { release: async () => undefined };

/**
 * Before a crawl's page is fetched (docs/crawl.md "Per-host delay" and "Per-host concurrency"): waits
 * for one of the host's `max_concurrency_per_host` slots, then for its turn by `delay_ms`, raised to
 * the origin's robots.txt `Crawl-delay` unless robots.txt is ignored. Both are claimed in the store,
 * so they hold across gateways. Nothing for plain batch jobs.
 */
export async function awaitHostTurn(context: GatewayContext, item: ClaimedItem): Promise<HostTurn> {
  const crawl = await crawlOf(context.db, item);
  if (!crawl) return NOTHING_HELD;
  let url: URL;
  try {
    url = new URL(item.url);
  } catch {
    return NOTHING_HELD;
  }
  const turn = await takeHostSlot(context, crawl, item, url.host);
  try {
    const delayMs = await hostDelayMs(context, crawl, url);
    if (delayMs > 0) {
      const waitMs = await claimHostTurn(context.db, crawl.job_id, url.host, delayMs);
      if (waitMs > 0) await sleep(waitMs);
    }
  } catch (error) {
    await turn.release();
    throw error;
  }
  return turn;
}

async function takeHostSlot(context: GatewayContext, crawl: CrawlRow, item: ClaimedItem, host: string): Promise<HostTurn> {
  const max = crawl.rules.max_concurrency_per_host ?? null;
  if (max === null) return NOTHING_HELD;
  const holder: SlotHolder = { jobId: crawl.job_id, seq: item.seq, requestId: item.requestId };
  for (let pollMs = 10; !(await claimHostSlot(context.db, holder, host, max)); pollMs = Math.min(SLOT_POLL_MAX_MS, pollMs * 2)) {
    await sleep(pollMs);
  }
  return {
    // A slot left behind (the store unreachable now) is stale once the item finishes, and the next claim on the host deletes it.
    release: () => releaseHostSlot(context.db, holder).catch((error: unknown) => context.logger.warn({ err: error, job: crawl.job_id, seq: item.seq }, 'crawl host slot not released; it lapses when the item finishes')),
  };
}

async function hostDelayMs(context: GatewayContext, crawl: CrawlRow, url: URL): Promise<number> {
  const asked = crawl.rules.delay_ms ?? 0;
  if (crawl.rules.ignore_robots_txt) return asked;
  let byOrigin = crawlDelayOf.get(crawl);
  if (!byOrigin) crawlDelayOf.set(crawl, (byOrigin = new Map()));
  let robotsMs = byOrigin.get(url.origin);
  if (robotsMs === undefined) byOrigin.set(url.origin, (robotsMs = robotsDelayMs(context, crawl, url.origin)));
  return Math.max(asked, await robotsMs);
}

/** The origin's `Crawl-delay`: the seed's robots.txt is on the crawl row, the others' were stored when their links were sorted. */
async function robotsDelayMs(context: GatewayContext, crawl: CrawlRow, origin: string): Promise<number> {
  const seedOrigin = new URL(crawl.seed_url).origin;
  const text = origin === seedOrigin ? crawl.robots_txt : (await knownOriginRobots(context.db, crawl.job_id, origin))?.text ?? null;
  const seconds = robotsRules(`${origin}/robots.txt`, text).crawlDelaySeconds();
  return Math.min(MAX_HOST_DELAY_MS, Math.max(0, Math.round((Number(seconds) || 0) * 1000)));
}
