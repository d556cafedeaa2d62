/**
 * Crawl throughput (not a test; issue 34): one generated loopback site of 5,000 pages (link depth 6, a
 * sitemap, robots.txt rules, pages answering in 50-300 ms) crawled from its home page by a Trawler crawl
 * (embedded, as `make run` runs it: PGlite on disk, in this process; its fetch worker's capacity,
 * WORKER_CAPACITY, set to the crawl's concurrency, as otherwise at most 16 pages would be in flight) and by Crawlee's CheerioCrawler
 * with `enqueueLinks` (same host, robots.txt respected), at the same concurrency, in one run,
 * alternating sides per round. Prints pages per second, the pages each found (and whether the sets
 * are equal), this process's resident memory at the start, peak and end of each side, and its CPU
 * time per page (steadier than pages per second on a shared machine).
 *
 *   npx tsx bench/crawl-bench.ts [--pages 5000] [--concurrency 50] [--rounds 1] [--only trawler|crawlee] [--worker-capacity N]
 *
 * `--only` runs one side (to profile it, e.g. under `node --cpu-prof --import tsx`); the ratio needs both.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmbedded } from '../test/support/embedded.js';
import { withCrawlee } from './crawlee-run.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '1' },
    only: { type: 'string' },
    'worker-capacity': { type: 'string' },
  },
});
const PAGES = Number(values.pages);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
/** Trawler's fetch worker's slots (WORKER_CAPACITY): the crawl's concurrency unless given (16, the default, caps it below Crawlee's). */
const WORKER_CAPACITY = Number(values['worker-capacity'] ?? CONCURRENCY);
const ONLY = values.only === undefined ? null : values.only === 'trawler' ? 'Trawler crawl' : values.only === 'crawlee' ? 'Crawlee CheerioCrawler' : null;
if (values.only !== undefined && ONLY === null) throw new Error('--only takes trawler or crawlee');
const BRANCHING = 4;

/** Page i links to its children 4i+1..4i+4 (a tree of depth 6 for 5,000 pages), its parent, the home page and a disallowed path. */
function pageHtml(i: number): string {
  const links = i === 0 ? [] : [0, Math.floor((i - 1) / BRANCHING)];
  for (let child = BRANCHING * i + 1; child <= BRANCHING * i + BRANCHING && child < PAGES; child += 1) links.push(child);
  const anchors = links.map((n) => `<a href="${n === 0 ? '/' : `/p/${n}`}">page ${n}</a>`).join(' ');
  return `<!doctype html><html><head><title>Page ${i}</title></head><body><h1>Page ${i}</h1><p>${'Some text of the page. '.repeat(40)}</p>${anchors} <a href="/private/${i}">private</a></body></html>`;
}

interface Site {
  origin: string;
  close(): Promise<void>;
}

async function startSite(): Promise<Site> {
  let origin = '';
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nDisallow: /private\nSitemap: ${origin}/sitemap.xml\n`);
    if (path === '/sitemap.xml') {
      // Every tenth page: also reachable by links, so both crawlers can find the same set.
      const locs = Array.from({ length: Math.ceil(PAGES / 10) }, (_, k) => k * 10).filter((n) => n > 0).map((n) => `<url><loc>${origin}/p/${n}</loc></url>`);
      return void res.writeHead(200, { 'content-type': 'application/xml' }).end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.join('')}</urlset>`);
    }
    const match = path === '/' ? 0 : /^\/p\/(\d+)$/.exec(path) ? Number(path.slice(3)) : -1;
    if (match < 0 || match >= PAGES) return void res.writeHead(404).end('missing');
    // 50-300 ms, spread over the pages the same way every run.
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageHtml(match)), 50 + ((match * 37) % 251));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  origin = `http://127.0.0.1:${port}`;
  return { origin, close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

/** Resident memory of this process, sampled every 200 ms while `run` goes, and the CPU time it used (every thread). */
async function withMemory<T>(run: () => Promise<T>): Promise<{ value: T; startMb: number; peakMb: number; endMb: number; cpuMs: number }> {
  const mb = () => process.memoryUsage().rss / 1024 / 1024;
  const startMb = mb();
  const cpuAtStart = process.cpuUsage();
  let peakMb = startMb;
  const timer = setInterval(() => (peakMb = Math.max(peakMb, mb())), 200);
  try {
    const value = await run();
    const cpu = process.cpuUsage(cpuAtStart);
    return { value, startMb, peakMb: Math.max(peakMb, mb()), endMb: mb(), cpuMs: (cpu.user + cpu.system) / 1000 };
  } finally {
    clearInterval(timer);
  }
}

interface Crawled {
  seconds: number;
  pages: Set<string>;
}

interface Api {
  url: string;
  secret: string;
}

async function call(api: Api, path: string, body?: unknown): Promise<Response> {
  const response = await fetch(`${api.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${api.secret}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status >= 300) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return response;
}

async function trawlerCrawl(api: Api, site: Site): Promise<Crawled> {
  const began = performance.now();
  const crawl = (await (await call(api, '/v1/crawl', { url: `${site.origin}/`, limit: 100_000, max_depth: 10, concurrency: CONCURRENCY, scrape: { cache: false } })).json()) as { id: string };
  let polls = 0;
  for (;;) {
    const state = (await (await call(api, `/v1/crawl/${crawl.id}`)).json()) as { status: string; progress: Record<string, number> };
    if (['completed', 'failed', 'cancelled'].includes(state.status)) {
      if (state.status !== 'completed' || state.progress.failed > 0) throw new Error(`crawl ended ${state.status}: ${JSON.stringify(state.progress)}`);
      break;
    }
    if (++polls % 40 === 0) console.error(`trawler crawl: ${state.progress.completed}/${state.progress.total} pages done`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const seconds = (performance.now() - began) / 1000;
  const pages = new Set<string>();
  for (let cursor: string | null = ''; cursor !== null; ) {
    const response = await call(api, `/v1/batch/${crawl.id}/results?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    for (const line of (await response.text()).split('\n').filter(Boolean)) pages.add(new URL((JSON.parse(line) as { url: string }).url).pathname);
    cursor = response.headers.get('x-next-cursor');
  }
  return { seconds, pages };
}

async function crawleeCrawl(site: Site): Promise<Crawled> {
  return withCrawlee(async ({ CheerioCrawler }, config) => {
    const pages = new Set<string>();
    const crawler = new CheerioCrawler(
      {
        // The same concurrency as Trawler's, held: Crawlee's autoscaling would otherwise lower it on a busy machine (Trawler's does not move).
        minConcurrency: CONCURRENCY,
        maxConcurrency: CONCURRENCY,
        maxRequestsPerCrawl: 100_000,
        maxRequestRetries: 0,
        respectRobotsTxtFile: true,
        requestHandler: async ({ request, enqueueLinks }) => {
          pages.add(new URL(request.loadedUrl ?? request.url).pathname);
          if (pages.size % 500 === 0) console.error(`crawlee: ${pages.size} pages done`);
          await enqueueLinks({ strategy: 'same-hostname' });
        },
      },
      config,
    );
    const began = performance.now();
    await crawler.run([`${site.origin}/`]);
    return { seconds: (performance.now() - began) / 1000, pages };
  });
}

async function main(): Promise<void> {
  const site = await startSite();
  const dataDir = mkdtempSync(join(tmpdir(), 'trawler-bench-data-'));
  const service = await startEmbedded({ engines: ['fetch'], env: { DEFAULT_MONTHLY_CREDITS: '100000000', DEFAULT_RATE_LIMIT_PER_SECOND: '1000', WORKER_CAPACITY: String(WORKER_CAPACITY) }, checkBusMessages: false, dataDir });
  const api = { url: service.url, secret: service.secret };
  const rows: Record<string, string>[] = [];
  const found: Record<string, Set<string>> = {};
  try {
    for (let i = 0; i < 600; i += 1) {
      const workers = (await (await call(api, '/v1/workers')).json()) as { workers?: unknown[] };
      if ((workers.workers ?? []).length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (let round = 1; round <= ROUNDS; round += 1) {
      // Alternate which side goes first, so neither always meets a warmer machine.
      const sides = round % 2 === 1 ? (['Trawler crawl', 'Crawlee CheerioCrawler'] as const) : (['Crawlee CheerioCrawler', 'Trawler crawl'] as const);
      for (const side of sides) {
        if (ONLY !== null && side !== ONLY) continue;
        const measured = await withMemory(() => (side === 'Trawler crawl' ? trawlerCrawl(api, site) : crawleeCrawl(site)));
        found[side] = measured.value.pages;
        rows.push({
          round: String(round),
          side,
          pages: String(measured.value.pages.size),
          seconds: measured.value.seconds.toFixed(1),
          'pages/s': (measured.value.pages.size / measured.value.seconds).toFixed(1),
          // The whole process's CPU (the loopback site's included, alike for both): steadier than pages/s on a busy machine.
          'CPU ms/page': (measured.cpuMs / measured.value.pages.size).toFixed(2),
          'RSS MB start / peak / end': `${measured.startMb.toFixed(0)} / ${measured.peakMb.toFixed(0)} / ${measured.endMb.toFixed(0)}`,
        });
        console.error(`${side}: ${JSON.stringify(rows.at(-1))}`);
      }
    }
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await site.close();
  }
  console.log(`\ncrawl of a ${PAGES}-page loopback site (depth 6, sitemap, robots.txt, pages 50-300 ms) at concurrency ${CONCURRENCY}; Trawler embedded in this process (its RSS includes PGlite and the fetch worker, ${WORKER_CAPACITY} slots)\n`);
  console.table(rows);
  if (ONLY !== null) return;
  const trawler = found['Trawler crawl'];
  const crawlee = found['Crawlee CheerioCrawler'];
  const onlyTrawler = [...trawler].filter((page) => !crawlee.has(page));
  const onlyCrawlee = [...crawlee].filter((page) => !trawler.has(page));
  console.log(`same set of pages: ${onlyTrawler.length === 0 && onlyCrawlee.length === 0 ? 'yes' : `no (only Trawler: ${onlyTrawler.slice(0, 5).join(' ')}; only Crawlee: ${onlyCrawlee.slice(0, 5).join(' ')})`}`);
  for (let round = 1; round <= ROUNDS; round += 1) {
    const rate = (side: string) => Number(rows.find((row) => row.round === String(round) && row.side === side)?.['pages/s']);
    console.log(`round ${round}: Trawler / Crawlee pages per second = ${(rate('Trawler crawl') / rate('Crawlee CheerioCrawler')).toFixed(2)} (target >= 1.5)`);
  }
}

await main();
