import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { embeddedForSuite } from '../support/suite-service.js';
import { createOrganization, createProject } from '../../lib/store/accounts.js';
import { keyFor } from '../support/accounts.js';
import { BatchClient, ledger, batchServiceOptions, type Json } from '../batch/batch-client.js';
import { sitemapIndex, startGeneratedSite, urlset, type GeneratedSite } from './generated-site.js';

const service = embeddedForSuite(batchServiceOptions());
let client: BatchClient;
let site: GeneratedSite | undefined;

beforeAll(() => {
  client = new BatchClient(service);
});
afterEach(async () => {
  await site?.close();
  site = undefined;
});

async function crawl(body: Json): Promise<Json> {
  const response = await client.post('/v1/crawl', body);
  const json = (await response.json()) as Json;
  expect(response.status, JSON.stringify(json)).toBe(202);
  return json;
}

async function crawlDone(id: string): Promise<Json> {
  await client.waitTerminal(id);
  const response = await client.get(`/v1/crawl/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

async function scrapedUrls(id: string): Promise<string[]> {
  const { lines } = await client.results(id);
  return lines.map((line) => line.url as string).sort();
}

/** Every path the site served more than once (robots.txt and sitemaps excluded). */
function fetchedTwice(s: GeneratedSite): string[] {
  return [...s.hits].filter(([path, n]) => n > 1 && !path.includes('robots') && !path.includes('sitemap')).map(([path]) => path);
}

/**
 * Whether the site's k-th page request (robots.txt and sitemaps excluded) came at least k·delay after
 * `since`. Each request waits for its turn and turns are spaced by the delay from the first, taken
 * after `since`: a late request never makes a later one early, so this holds however busy the machine.
 */
function pagesPacedBy(s: GeneratedSite, since: number, delayMs: number): { paced: boolean; offsets: number[] } {
  const offsets = s.arrivals.filter(({ path }) => !path.includes('robots') && !path.includes('sitemap')).map(({ at }) => at - since).sort((a, b) => a - b);
  // 25 ms for the two clocks' rounding (the store's clock_timestamp() and the site's Date.now()).
  return { paced: offsets.every((offset, k) => offset >= k * delayMs - 25), offsets };
}

describe('POST /v1/crawl', () => {
  it('follows links on the site, one page once whatever its spelling, and counts what it skipped and why', async () => {
    site = await startGeneratedSite({
      robots: 'User-agent: *\nDisallow: /private\nAllow: /private/open\n',
      pages: {
        '/': ['/a', '/a/', '/a#section', '/a?y=2&x=1', '/a?x=1&y=2', '/index.html', '{origin}/b', '/private/secret', '/private/open',
          'http://10.0.0.1/', 'http://localhost:1/', 'https://elsewhere.invalid/', 'mailto:someone@example.com'],
        '/a': ['/', '/b'],
        '/b': ['/a', '/'],
        '/private/open': [],
        '/private/secret': [],
      },
    });
    const origin = site.origin;
    const created = await crawl({ url: `${origin}/`, sitemap: 'skip', scrape: { cache: false } });
    expect(created.status_url).toBe(`/v1/crawl/${created.id as string}`);
    const done = await crawlDone(created.id as string);
    expect(done.status).toBe('completed');
    expect(await scrapedUrls(created.id as string)).toEqual([
      `${origin}/`, `${origin}/a`, `${origin}/a?x=1&y=2`, `${origin}/b`, `${origin}/private/open`,
    ].sort());
    expect(fetchedTwice(site)).toEqual([]);
    expect(site.hits.has('/private/secret')).toBe(false);
    const stats = done.crawl as Json;
    expect(stats.queued).toBe(5);
    expect(stats.skipped).toMatchObject({ robots: 1, off_site: 1, blocked_address: 2 });
    expect((stats.skipped as Json).duplicate as number).toBeGreaterThan(0);
    expect(stats.robots_txt).toBe('obeyed');
    expect((done.progress as Json).succeeded).toBe(5);
  });

  it('stops at max_depth and at the exact limit', async () => {
    const chain: Record<string, string[]> = { '/': ['/d1'] };
    for (let depth = 1; depth <= 6; depth += 1) chain[`/d${depth}`] = [`/d${depth + 1}`];
    site = await startGeneratedSite({ pages: chain });
    const deep = await crawlDone((await crawl({ url: `${site.origin}/`, max_depth: 2, sitemap: 'skip', scrape: { cache: false } })).id as string);
    expect((deep.crawl as Json).queued).toBe(3);
    expect((deep.crawl as Json).skipped).toMatchObject({ depth: 1 });
    expect((deep.crawl as Json).by_depth).toEqual([
      { depth: 0, queued: 1, skipped: {} }, { depth: 1, queued: 1, skipped: {} }, { depth: 2, queued: 1, skipped: {} }, { depth: 3, queued: 0, skipped: { depth: 1 } },
    ]);

    const wide: Record<string, string[]> = { '/': Array.from({ length: 30 }, (_, i) => `/p${i}`) };
    for (let i = 0; i < 30; i += 1) wide[`/p${i}`] = ['/', `/p${(i + 1) % 30}`];
    await site.close();
    site = await startGeneratedSite({ pages: wide });
    const limited = await crawlDone((await crawl({ url: `${site.origin}/`, limit: 7, sitemap: 'skip', scrape: { cache: false } })).id as string);
    expect(limited.total_items).toBe(7);
    expect((limited.progress as Json).succeeded).toBe(7);
    expect((limited.crawl as Json).queued).toBe(7);
    // Counted per finding: the 23 pages left out are each found by one page or more.
    expect(((limited.crawl as Json).skipped as Json).limit as number).toBeGreaterThanOrEqual(23);
    expect(fetchedTwice(site)).toEqual([]);
  });

  it('reads sitemaps named by robots.txt: an index, a gzipped sitemap, and only those pages with sitemap=only', async () => {
    site = await startGeneratedSite({
      robots: 'User-agent: *\nDisallow: /hidden\nSitemap: {origin}/sitemap_index.xml\n',
      sitemaps: {
        '/sitemap_index.xml': sitemapIndex(['/sitemap-a.xml.gz', '/sitemap-b.xml']),
        '/sitemap-a.xml.gz': urlset(['/s1', '/s2', '/hidden/h']),
        '/sitemap-b.xml': urlset(['/s3', '/']),
      },
      pages: { '/': ['/linked'], '/s1': [], '/s2': [], '/s3': [], '/linked': [], '/hidden/h': [] },
    });
    const origin = site.origin;
    const done = await crawlDone((await crawl({ url: `${origin}/`, sitemap: 'only', scrape: { cache: false } })).id as string);
    expect(await scrapedUrls(done.id as string)).toEqual([`${origin}/`, `${origin}/s1`, `${origin}/s2`, `${origin}/s3`].sort());
    expect(((done.crawl as Json).skipped as Json).robots).toBe(1);
    expect(site.hits.has('/linked')).toBe(false);
  });

  it('treats an unreachable robots.txt (5xx) as disallowing everything but the seed; ignore_robots_txt overrides', async () => {
    site = await startGeneratedSite({ robots: { status: 503 }, pages: { '/': ['/x'], '/x': [] } });
    const strict = await crawlDone((await crawl({ url: `${site.origin}/`, sitemap: 'skip', scrape: { cache: false } })).id as string);
    expect((strict.crawl as Json).robots_txt).toBe('unreachable');
    expect((strict.progress as Json).succeeded).toBe(1);
    const relaxed = await crawlDone((await crawl({ url: `${site.origin}/`, sitemap: 'skip', ignore_robots_txt: true, scrape: { cache: false } })).id as string);
    expect((relaxed.progress as Json).succeeded).toBe(2);
  });

  it('applies include and exclude path patterns and ignores query parameters when asked', async () => {
    site = await startGeneratedSite({
      pages: { '/': ['/blog/1', '/blog/2?ref=a', '/blog/2?ref=b', '/blog/drafts/3', '/shop/1'], '/blog/1': [], '/blog/2': [], '/blog/drafts/3': [], '/shop/1': [] },
    });
    const done = await crawlDone((await crawl({
      url: `${site.origin}/`, include_paths: ['/blog', '/'], exclude_paths: ['/blog/drafts*', '/shop'], ignore_query_parameters: true, sitemap: 'skip', scrape: { cache: false },
    })).id as string);
    // '/' as an include pattern matches every path; the excludes still apply.
    expect(await scrapedUrls(done.id as string)).toEqual([`${site.origin}/`, `${site.origin}/blog/1`, `${site.origin}/blog/2`].sort());
    expect(((done.crawl as Json).skipped as Json).pattern).toBe(2);
  });

  it('bills each page as a batch item and is cancelled through the batch route', async () => {
    const pages: Record<string, string[]> = { '/': Array.from({ length: 40 }, (_, i) => `/n${i}`) };
    for (let i = 0; i < 40; i += 1) pages[`/n${i}`] = [];
    site = await startGeneratedSite({ pages });
    const before = await ledger(service);
    const small = await crawlDone((await crawl({ url: `${site.origin}/`, limit: 3, sitemap: 'skip', scrape: { cache: false } })).id as string);
    const after = await ledger(service);
    expect((small.progress as Json).credits_charged_micro).toBe(3_000_000);
    expect(after.spent - before.spent).toBe(3_000_000);

    const created = await crawl({ url: `${site.origin}/`, concurrency: 1, sitemap: 'skip', scrape: { cache: false } });
    const id = created.id as string;
    await client.waitFor(id, (job) => (job.total_items as number) > 1);
    const cancel = await client.post(`/v1/batch/${id}/cancel`);
    expect(cancel.status).toBe(202);
    const done = await crawlDone(id);
    expect(done.status).toBe('cancelled');
    expect((done.progress as Json).cancelled as number).toBeGreaterThan(0);
  });

  it('holds as many of a page\'s links as the allowance has room for, then stops cleanly, saying why', async () => {
    const pages: Record<string, string[]> = { '/': Array.from({ length: 20 }, (_, i) => `/m${i}`) };
    for (let i = 0; i < 20; i += 1) pages[`/m${i}`] = [];
    site = await startGeneratedSite({ pages });
    /** A crawl in an organization of its own with this allowance (holds other tests give back cannot widen it). */
    const crawlWithAllowance = async (name: string, credits: number) => {
      const organization = await createOrganization(service.db, name, { monthlyCreditsMicro: credits * 1_000_000, rateLimitPerSecond: 1000, concurrencyLimit: 4 });
      const project = await createProject(service.db, organization.id, name);
      const own = new BatchClient(service, await keyFor(service.db, project.id, ['batch', 'scrape']));
      const response = await own.post('/v1/crawl', { url: `${site!.origin}/`, sitemap: 'skip', scrape: { cache: false } });
      const created = (await response.json()) as Json;
      expect(response.status, JSON.stringify(created)).toBe(202);
      await own.waitTerminal(created.id as string);
      return (await (await own.get(`/v1/crawl/${created.id as string}`)).json()) as Json;
    };

    // Room for the seed and 4 of its 20 links (one credit a page): the first 4 found are held, the other 16 skipped.
    const short = await crawlWithAllowance('crawl-allowance-short', 5);
    expect(short.status).toBe('completed');
    expect((short.progress as Json).succeeded).toBe(5);
    expect((short.progress as Json).credits_charged_micro).toBe(5_000_000);
    const stats = short.crawl as Json;
    expect(stats.stopped_reason).toMatch(/^credits: /);
    expect(stats.queued).toBe(5);
    expect((stats.skipped as Json).credits).toBe(16);
    expect(['/m0', '/m1', '/m2', '/m3'].every((path) => site!.hits.get(path) === 1)).toBe(true);
    expect(site.hits.has('/m4')).toBe(false);

    // Room for exactly all 21 pages: nothing is left out and the crawl does not stop early.
    const exact = await crawlWithAllowance('crawl-allowance-exact', 21);
    expect((exact.progress as Json).succeeded).toBe(21);
    expect((exact.crawl as Json).stopped_reason).toBeUndefined();
    expect(((exact.crawl as Json).skipped as Json).credits).toBe(0);
  });

  it('keeps at most max_concurrency_per_host requests to one host in flight', async () => {
    const pages: Record<string, string[]> = { '/': Array.from({ length: 12 }, (_, i) => `/c${i}`) };
    for (let i = 0; i < 12; i += 1) pages[`/c${i}`] = [];
    site = await startGeneratedSite({ pages, pageDelayMs: 150 });
    const created = await crawl({ url: `${site.origin}/`, sitemap: 'skip', concurrency: 8, max_concurrency_per_host: 2, scrape: { cache: false } });
    const done = await crawlDone(created.id as string);
    expect((done.progress as Json).succeeded).toBe(13);
    expect((done.crawl as Json).rules).toMatchObject({ max_concurrency_per_host: 2 });
    expect(site.peakInFlight()).toBeLessThanOrEqual(2);
    expect(fetchedTwice(site)).toEqual([]);

    const invalid = await client.post('/v1/crawl', { url: `${site.origin}/`, max_concurrency_per_host: 0 });
    expect(invalid.status).toBe(400);
    expect(JSON.stringify(await invalid.json())).toContain('max_concurrency_per_host');
  });

  it('reads the robots.txt of every other host it follows links to, once per crawl, and obeys it', async () => {
    const other = await startGeneratedSite({
      robots: 'User-agent: *\nDisallow: /closed\n',
      pages: { '/': ['/open', '/closed/x'], '/open': ['/closed/y', '/open2'], '/open2': ['/closed/z'], '/closed/x': [], '/closed/y': [], '/closed/z': [] },
    });
    try {
      site = await startGeneratedSite({ pages: { '/': [`${other.origin}/`, `${other.origin}/open`, `${other.origin}/closed/w`] } });
      const created = await crawl({ url: `${site.origin}/`, sitemap: 'skip', allow_external: true, concurrency: 4, scrape: { cache: false } });
      const done = await crawlDone(created.id as string);
      expect(await scrapedUrls(created.id as string)).toEqual([`${site.origin}/`, `${other.origin}/`, `${other.origin}/open`, `${other.origin}/open2`].sort());
      expect(other.hits.get('/robots.txt')).toBe(1);
      expect([...other.hits.keys()].some((path) => path.startsWith('/closed'))).toBe(false);
      expect(((done.crawl as Json).skipped as Json).robots).toBe(4);

      const map = (await (await client.post('/v1/map', { url: `${site.origin}/`, sitemap: 'skip', allow_external: true })).json()) as Json;
      expect((map.links as string[]).sort()).toEqual([`${site.origin}/`, `${other.origin}/`, `${other.origin}/open`].sort());
    } finally {
      await other.close();
    }
  });

  it('spaces the requests to one host by delay_ms across concurrent items (the site\'s own arrival log)', async () => {
    site = await startGeneratedSite({ pages: { '/': ['/p1', '/p2', '/p3', '/p4'], '/p1': [], '/p2': [], '/p3': [], '/p4': [] } });
    const since = Date.now();
    const created = await crawl({ url: `${site.origin}/`, sitemap: 'skip', concurrency: 5, delay_ms: 400, scrape: { cache: false } });
    const done = await crawlDone(created.id as string);
    expect((done.progress as Json).succeeded).toBe(5);
    expect((done.crawl as Json).rules).toMatchObject({ delay_ms: 400 });
    const pacing = pagesPacedBy(site, since, 400);
    expect(pacing.paced, JSON.stringify(pacing.offsets)).toBe(true);
  });

  it('applies the seed host\'s robots.txt Crawl-delay to its pages', async () => {
    site = await startGeneratedSite({ robots: 'User-agent: *\nCrawl-delay: 1\n', pages: { '/': ['/p1', '/p2'], '/p1': [], '/p2': [] } });
    const since = Date.now();
    const created = await crawl({ url: `${site.origin}/`, sitemap: 'skip', concurrency: 5, scrape: { cache: false } });
    expect(((await crawlDone(created.id as string)).progress as Json).succeeded).toBe(3);
    const pacing = pagesPacedBy(site, since, 1000);
    expect(pacing.paced, JSON.stringify(pacing.offsets)).toBe(true);
  });

  it('recognises a page reached by redirect: a later link to it is a duplicate and it is fetched once', async () => {
    site = await startGeneratedSite({ redirects: { '/old': '/b' }, pages: { '/': ['/old'], '/b': ['/d'], '/d': ['/b'] } });
    const origin = site.origin;
    const created = await crawl({ url: `${origin}/`, sitemap: 'skip', scrape: { cache: false } });
    const done = await crawlDone(created.id as string);
    expect(await scrapedUrls(created.id as string)).toEqual([`${origin}/`, `${origin}/d`, `${origin}/old`]);
    expect(site.hits.get('/b')).toBe(1);
    const stats = done.crawl as Json;
    expect(stats.queued).toBe(3);
    expect((stats.skipped as Json).duplicate).toBe(1);
  });

  it('counts a skipped URL once however many pages link to it', async () => {
    const away = 'https://elsewhere.invalid/x';
    site = await startGeneratedSite({ pages: { '/': ['/a', '/b', away], '/a': [away, '/b'], '/b': [away, '/a'] } });
    const created = await crawl({ url: `${site.origin}/`, sitemap: 'skip', scrape: { cache: false } });
    const stats = (await crawlDone(created.id as string)).crawl as Json;
    expect(stats.queued).toBe(3);
    expect(stats.skipped).toMatchObject({ off_site: 1, duplicate: 2 });
    expect(stats.discovered).toBe(6);
  });

  it('refuses unknown fields and a url inside scrape, naming them', async () => {
    const unknown = await client.post('/v1/crawl', { url: 'http://127.0.0.1:1/', depth: 3 });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(await unknown.json())).toContain('depth');
    const nested = await client.post('/v1/crawl', { url: 'http://127.0.0.1:1/', scrape: { url: 'http://127.0.0.1:1/x' } });
    expect(nested.status).toBe(400);
    expect(JSON.stringify(await nested.json())).toContain('scrape.url');
  });
});

describe('POST /v1/map', () => {
  it('lists the site from sitemaps and the seed page, filtered by search and limited', async () => {
    site = await startGeneratedSite({
      robots: 'User-agent: *\nDisallow: /hidden\nSitemap: {origin}/sm.xml\n',
      sitemaps: { '/sm.xml': urlset(['/docs/a', '/docs/b', '/hidden/x', '/about']) },
      pages: { '/': ['/docs/c', 'https://elsewhere.invalid/docs', '/about#team'] },
    });
    const response = await client.post('/v1/map', { url: `${site.origin}/`, search: 'docs' });
    const body = (await response.json()) as Json;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(response.headers.get('x-credits-charged')).toBe('0');
    expect((body.links as string[]).sort()).toEqual([`${site.origin}/docs/a`, `${site.origin}/docs/b`, `${site.origin}/docs/c`]);
    const limited = (await (await client.post('/v1/map', { url: `${site.origin}/`, limit: 2 })).json()) as Json;
    expect(limited.links).toHaveLength(2);
  });
});

describe('where each page came from, and crawls among the batch jobs', () => {
  it('gives every result line of a crawl its depth and parent_url (null for the seed and sitemap pages); a batch job\'s lines have neither', async () => {
    site = await startGeneratedSite({
      robots: 'User-agent: *\nSitemap: {origin}/sm.xml\n',
      sitemaps: { '/sm.xml': urlset(['/from-sitemap']) },
      // /b is linked from / and from /a: / is sorted first (it is the only page at depth 0), so it is /b's parent.
      pages: { '/': ['/a', '/b'], '/a': ['/a/deeper', '/b'], '/a/deeper': ['/'], '/b': [], '/from-sitemap': ['/sitemap-child'], '/sitemap-child': [] },
    });
    const origin = site.origin;
    const created = await crawl({ url: `${origin}/`, scrape: { cache: false } });
    expect(created.kind).toBe('crawl');
    await crawlDone(created.id as string);
    const { lines } = await client.results(created.id as string);
    const origins = Object.fromEntries(lines.map((line) => [line.url as string, { depth: line.depth, parent_url: line.parent_url }]));
    expect(origins).toEqual({
      [`${origin}/`]: { depth: 0, parent_url: null },
      [`${origin}/from-sitemap`]: { depth: 1, parent_url: null },
      [`${origin}/a`]: { depth: 1, parent_url: `${origin}/` },
      [`${origin}/b`]: { depth: 1, parent_url: `${origin}/` },
      [`${origin}/a/deeper`]: { depth: 2, parent_url: `${origin}/a` },
      [`${origin}/sitemap-child`]: { depth: 2, parent_url: `${origin}/from-sitemap` },
    });
    // Right after `url`, as docs/crawl.md shows them; every member is in the reference's BatchResultLine.
    expect(Object.keys(lines[0]).slice(0, 5)).toEqual(['seq', 'url', 'depth', 'parent_url', 'status']);
    const reference = (await (await fetch(`${service.url}/v1/openapi.json`)).json()) as { components: { schemas: Record<string, { properties: Json; required?: string[] }> } };
    const documented = Object.keys(reference.components.schemas.BatchResultLine.properties);
    for (const line of lines) expect(Object.keys(line).filter((member) => !documented.includes(member))).toEqual([]);

    const batch = await client.submit({ urls: [`${origin}/a`], cache: false });
    expect(batch.kind).toBe('batch');
    await client.waitTerminal(batch.id as string);
    const [line] = (await client.results(batch.id as string)).lines;
    expect(line.status).toBe('succeeded');
    expect('depth' in line || 'parent_url' in line).toBe(false);

    // GET /v1/batch lists both, telling them apart; the kind is documented as the job object's.
    const listed = (await (await client.get('/v1/batch?limit=200')).json()) as { batches: Json[] };
    const kinds = Object.fromEntries(listed.batches.map((job) => [job.id as string, job.kind]));
    expect(kinds[created.id as string]).toBe('crawl');
    expect(kinds[batch.id as string]).toBe('batch');
    expect(listed.batches.every((job) => job.kind === 'crawl' || job.kind === 'batch')).toBe(true);
    expect(reference.components.schemas.BatchJob.required).toContain('kind');
    expect((reference.components.schemas.BatchJob.properties.kind as Json).enum).toEqual(['batch', 'crawl']);
  });
});
