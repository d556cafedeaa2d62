import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedForSuite } from '../support/suite-service.js';
import { BATCH_ENV, BatchClient, type Json } from '../batch/batch-client.js';
import { appendPageLinks, type PageLinks } from '../../gateway/crawl/append-pages.js';
import { crawlCounts, getCrawl } from '../../lib/store/crawl.js';
import { getJobById } from '../../lib/store/batch/jobs.js';
import { startGeneratedSite, type GeneratedSite } from './generated-site.js';

let site: GeneratedSite;
/** The seed's result is held back until the test is done, so the crawl stays running meanwhile. */
let seedFinishing: () => void;
const seedAtFinish = new Promise<void>((resolve) => (seedFinishing = resolve));
let releaseSeed: () => void;
const seedReleased = new Promise<void>((resolve) => (releaseSeed = resolve));

beforeAll(async () => {
  site = await startGeneratedSite({ pages: { '/': [] } });
});
afterAll(async () => site?.close());
const service = embeddedForSuite({
  engines: ['fetch'],
  env: BATCH_ENV,
  batchHooks: {
    beforeFinish: async () => {
      seedFinishing();
      await seedReleased;
    },
  },
});
// Hooks after a suite run last-registered first: the seed is let go before the service stops.
afterAll(() => releaseSeed());

describe('links of several pages appended together (gateway/crawl/append-pages.ts)', () => {
  it('go page after page: a link an earlier page queued is a duplicate for a later one, the limit is shared in order, a URL skipped twice counts once', async () => {
    const client = new BatchClient(service);
    const response = await client.post('/v1/crawl', { url: `${site.origin}/`, limit: 4, sitemap: 'skip', scrape: { cache: false } });
    const created = (await response.json()) as Json;
    expect(response.status, JSON.stringify(created)).toBe(202);
    const jobId = created.id as string;
    await seedAtFinish;
    const crawl = await getCrawl(service.db, jobId);
    if (!crawl) throw new Error('crawl row missing');
    const { context } = service.gateway;
    const deps = { db: service.db, ledger: context.ledger, testMonthlyCredits: context.config.TEST_MONTHLY_CREDITS };
    const page = (keys: string[], skipped: string[], holdMicro: number): PageLinks => ({
      crawl, projectId: service.projectId, parentSeq: 0, depth: 1, holdMicro,
      found: { keys: keys.map((path) => `${site.origin}${path}`), skips: new Map([['pattern@1', skipped.map((path) => `${site.origin}${path}`)]]) },
    });
    // Submitted in one turn: written as one group, in this order.
    const answers = await Promise.all([
      appendPageLinks(deps, page(['/a', '/b'], ['/x'], 1_000_000)),
      appendPageLinks(deps, page(['/b', '/c', '/d', '/e'], ['/x', '/y'], 2_000_000)),
      appendPageLinks(deps, page(['/a'], [], 1_000_000)),
    ]);
    expect(answers).toEqual([true, true, false]);

    const items = await service.db.query<{ seq: number; url: string; hold_micro: number }>(`SELECT seq, url, hold_micro FROM batch_items WHERE job_id = $1 ORDER BY seq`, [jobId]);
    // The seed is item 0; the limit of 4 leaves room for 3: /a and /b of the first page, /c of the second.
    expect(items.rows.map((row) => [Number(row.seq), new URL(row.url).pathname, Number(row.hold_micro)])).toEqual([
      [0, '/', crawl.item_hold_micro], [1, '/a', 1_000_000], [2, '/b', 1_000_000], [3, '/c', 2_000_000],
    ]);
    expect(Number((await getJobById(service.db, jobId))?.total_items)).toBe(4);
    const counts = await crawlCounts(service.db, jobId);
    const skipped = Object.fromEntries(counts.skipped.map((row) => [`${row.reason}@${row.depth}`, row.count]));
    // /b (second page) and /a (third) are duplicates; /d and /e past the limit; /x counted once for both pages that skipped it.
    expect(skipped).toEqual({ 'duplicate@1': 2, 'limit@1': 2, 'pattern@1': 2 });
    releaseSeed();
  });
});
