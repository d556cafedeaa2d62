import { setTimeout as sleep } from 'node:timers/promises';
import { fetchedRobotsOfOrigin, robotsOfOrigin, storeRobotsOfOrigin, type StoredRobots } from '../../lib/store/crawl-hosts.js';
import type { Queryable } from '../../lib/store/db.js';
import type { EgressPolicy } from '../../lib/egress/policy.js';
import { originRobots, originsWithoutRobots, type LinkFilter } from './link-filter.js';
import { fetchRobots, siteFetcher, type SiteFetcher } from './site-files.js';

/** robots.txt files read at once for one page's links (each is one request to another host). */
const PARALLEL_ROBOTS = 8;
/** How long a gateway's claim to fetch an origin's robots.txt stands before another may take it over (the fetch times out well inside it). */
const ROBOTS_CLAIM_MS = 30_000;
const PENDING_POLL_MS = 100;
/** Origins' robots.txt kept per process (job id and origin); the store has them all. */
const MAX_CACHED = 10_000;
const cached = new Map<string, Promise<StoredRobots>>();

/**
 * Puts into the filter the robots.txt of every origin these links need and it lacks (docs/crawl.md
 * "robots.txt"): fetched with `fetchOne`, at most PARALLEL_ROBOTS at a time.
 */
export async function addOriginRobots(filter: LinkFilter, links: readonly string[], depth: number, fetchOne: (origin: string) => Promise<StoredRobots>): Promise<void> {
  const origins = originsWithoutRobots(links, depth, filter);
  for (let start = 0; start < origins.length; start += PARALLEL_ROBOTS) {
    const batch = origins.slice(start, start + PARALLEL_ROBOTS);
    const answers = await Promise.all(batch.map(fetchOne));
    batch.forEach((origin, index) => filter.robots.set(origin, originRobots(origin, answers[index].text, answers[index].unreachable)));
  }
}

/** One origin's robots.txt fetched now (map, and a crawl's creation before its job exists). */
export function fetchedRobots(fetcher: SiteFetcher): (origin: string) => Promise<StoredRobots> {
  return async (origin) => {
    const file = await fetchRobots(fetcher, new URL(origin));
    return { text: file.text, unreachable: file.unreachable };
  };
}

/**
 * One origin's robots.txt for a running crawl: once per crawl and origin across every gateway. The
 * first gateway to ask claims it in the store, fetches it and stores it; the others wait for the
 * stored answer (or take over a claim that lapsed with its gateway). Kept per process after that.
 */
export function storedRobots(db: Queryable, policy: EgressPolicy, jobId: string): { fetchOne: (origin: string) => Promise<StoredRobots>; close(): Promise<void> } {
  let fetcher: SiteFetcher | null = null;
  const load = async (origin: string): Promise<StoredRobots> => {
    for (;;) {
      const stored = await robotsOfOrigin(db, jobId, origin, ROBOTS_CLAIM_MS);
      if (stored === 'pending') {
        await sleep(PENDING_POLL_MS);
        continue;
      }
      if (stored !== 'claimed') return stored;
      fetcher ??= siteFetcher(policy);
      const file = await fetchRobots(fetcher, new URL(origin));
      return storeRobotsOfOrigin(db, jobId, origin, { text: file.text, unreachable: file.unreachable });
    }
  };
  return {
    fetchOne(origin) {
      const key = `${jobId} ${origin}`;
      let answer = cached.get(key);
      if (!answer) {
        if (cached.size >= MAX_CACHED) cached.delete(cached.keys().next().value as string);
        answer = load(origin);
        cached.set(key, answer);
        answer.catch(() => cached.delete(key));
      }
      return answer;
    },
    close: async () => {
      await fetcher?.close();
    },
  };
}

/** The stored robots.txt of an origin already read for this crawl, or null (host pacing reads its Crawl-delay). */
export async function knownOriginRobots(db: Queryable, jobId: string, origin: string): Promise<StoredRobots | null> {
  const key = `${jobId} ${origin}`;
  const answer = cached.get(key);
  if (answer) return answer.catch(() => null);
  return fetchedRobotsOfOrigin(db, jobId, origin);
}
