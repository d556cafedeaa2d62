/**
 * main_content_only against Mozilla Readability on the three development collections of
 * ../shared/content-bench (real pages with human-marked main text: news, news/blogs/other sites,
 * mixed pages). Every page is served from a loopback target and scraped THROUGH THE API (embedded
 * service) as text with main_content_only=true; Readability 0.6 on linkedom reads the same pages in
 * the same run; the collection's scorer rates both (with its bootstrap deviation, 100 resamples), on each collection and on its two halves (split
 * by the first byte of the MD5 of the page's id, as docs/content.md's figures are). Then, in a fresh process
 * (bench/main-content-throughput.ts), text throughput against Readability and markdown throughput of
 * the content pipeline against turndown alone on the same pages. Prints figures; not a test.
 * Run: npx tsx bench/main-content-bench.ts (CONTENT_BENCH_DIR overrides where the collection is).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { jsonPost, startEmbedded } from '../test/support/embedded.js';
import { COLLECTION, loadPages, megabytesOf, setDir, SETS, type Page, type SetName } from './main-content-pages.js';

const CONCURRENCY = 2;

/** Serves `/<id>.html` as the page was served: gzip, text/html without a charset (the worker sniffs it). */
async function serve(pages: Page[]): Promise<{ origin: string; close(): Promise<void> }> {
  const byPath = new Map(pages.map((page) => [`/${page.id}.html`, page.gzipped]));
  const server = http.createServer((request, response) => {
    const body = byPath.get(request.url ?? '');
    if (!body) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function scrapeThroughApi(pages: Page[]): Promise<{ output: Record<string, { articleBody: string }>; seconds: number; failed: string }> {
  const target = await serve(pages);
  const service = await startEmbedded({ engines: ['fetch'], env: { DEFAULT_MONTHLY_CREDITS: '100000000' }, checkBusMessages: false });
  await service.db.query('UPDATE organizations SET rate_limit_per_second = 1000000, concurrency_limit = 10000');
  const output: Record<string, { articleBody: string }> = {};
  const scrape = (page: Page) =>
    fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: `${target.origin}/${page.id}.html`, response_format: 'text', main_content_only: true, cache: false }));
  await warmUp(() => scrape(pages[0]));
  const failures = new Map<string, number>();
  const retried: string[] = [];
  let next = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < pages.length) {
          const page = pages[next++];
          let response = await scrape(page);
          let text = await response.text();
          // A retryable answer (a content deadline on a loaded machine) is retried once, as a client
          // would; both the retried and the still-failed pages are counted in the line.
          if (response.status !== 200 && /"retryable"\s*:\s*true/.test(text)) {
            retried.push(page.id);
            response = await scrape(page);
            text = await response.text();
          }
          if (response.status !== 200) {
            const code = (/"code"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? String(response.status));
            failures.set(code, (failures.get(code) ?? 0) + 1);
          }
          output[page.id] = { articleBody: response.status === 200 ? text : '' };
        }
      }),
    );
  } finally {
    await service.stop();
    await target.close();
  }
  const failed = [...failures].map(([code, count]) => `${count} ${code}`).join(', ') || '0 failed';
  if (retried.length > 0) console.log(`retried once after a retryable answer: ${retried.join(', ')}`);
  return { output, seconds: (performance.now() - started) / 1000, failed };
}

/** The embedded workers announce themselves on the bus; scrape until the first answer is a 200. */
async function warmUp(scrape: () => Promise<Response>): Promise<void> {
  for (let attempt = 0; attempt < 60; attempt += 1) {
    const response = await scrape();
    await response.arrayBuffer();
    if (response.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('the embedded service never answered a scrape with 200');
}

function readability(pages: Page[]): { output: Record<string, { articleBody: string }>; seconds: number } {
  const output: Record<string, { articleBody: string }> = {};
  const started = performance.now();
  for (const page of pages) {
    let text = '';
    try {
      const { document } = parseHTML(page.html);
      text = new Readability(document as unknown as Document).parse()?.textContent ?? '';
    } catch {
      text = '';
    }
    output[page.id] = { articleBody: text };
  }
  return { output, seconds: (performance.now() - started) / 1000 };
}

type Output = Record<string, { articleBody: string }>;
type Metrics = Record<string, { f1: number; precision: number; recall: number; f1_std: number; precision_std: number; recall_std: number }>;

/** The collection's scorer on `outputs`, restricted to the pages `ids` names; the outputs are kept for a look afterwards. */
function score(set: SetName, ids: string[], outputs: Record<string, Output>): Metrics {
  const dir = mkdtempSync(path.join(tmpdir(), `trawler-content-bench-${set}-`));
  mkdirSync(path.join(dir, 'output'));
  const truth = JSON.parse(readFileSync(path.join(setDir(set), 'ground-truth.json'), 'utf8')) as Record<string, unknown>;
  const pick = <T>(all: Record<string, T>): Record<string, T> => Object.fromEntries(ids.map((id) => [id, all[id]]));
  writeFileSync(path.join(dir, 'ground-truth.json'), JSON.stringify(pick(truth)));
  for (const [name, output] of Object.entries(outputs)) writeFileSync(path.join(dir, 'output', `${name}.json`), JSON.stringify(pick(output)));
  const result = spawnSync('python3', [path.join(COLLECTION, 'evaluate.py'), '--n-bootstrap', '100', '--output', 'scores.json'], { cwd: dir, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`evaluate.py failed: ${result.stderr}`);
  return JSON.parse(readFileSync(path.join(dir, 'scores.json'), 'utf8')) as Metrics;
}

/** Half A or B of a collection: the first byte of the MD5 of the page's id, below 128 or not. */
function half(id: string): 'A' | 'B' {
  return createHash('md5').update(id).digest()[0] < 128 ? 'A' : 'B';
}

async function measureSet(set: SetName): Promise<void> {
  const pages = loadPages(set);
  const megabytes = megabytesOf(pages);
  console.log(`\n${set}: ${pages.length} pages, ${megabytes.toFixed(1)} MB of HTML; text, main_content_only=true (machine may be shared: compare the two sides, not runs)`);
  const ours = await scrapeThroughApi(pages);
  const reference = readability(pages);
  const outputs = { trawler: ours.output, readability: reference.output };
  const ids = pages.map((page) => page.id);
  const parts: Array<[string, string[]]> = [['all', ids], ['half A', ids.filter((id) => half(id) === 'A')], ['half B', ids.filter((id) => half(id) === 'B')]];
  const seconds: Record<string, number> = { trawler: ours.seconds, readability: reference.seconds };
  for (const [part, subset] of parts) {
    const metrics = score(set, subset, outputs);
    for (const [name, label] of [['trawler', `trawler through the API (${CONCURRENCY} at a time; ${ours.failed})`], ['readability', 'readability 0.6 on linkedom, one core']]) {
      const m = metrics[name];
      const speed = part === 'all' ? `  ${(megabytes / seconds[name]).toFixed(2).padStart(6)} MB/s` : '';
      const pm = (value: number, std: number): string => `${value.toFixed(3)} ± ${std.toFixed(3)}`;
      console.log(`${set} ${part.padEnd(6)} ${label.padEnd(44)} F1 ${pm(m.f1, m.f1_std)}  precision ${pm(m.precision, m.precision_std)}  recall ${pm(m.recall, m.recall_std)}${speed}`);
    }
    const ourF1 = metrics.trawler.f1;
    const theirs = metrics.readability;
    if (part === 'all') {
      const target = ourF1 >= theirs.f1 + 0.03 && metrics.trawler.recall >= theirs.recall - 0.01;
      console.log(`${set} target (F1 >= readability's + 0.03, recall >= readability's - 0.01): ${target ? 'met' : 'NOT met'}`);
    }
  }
}

async function main(): Promise<void> {
  if (!existsSync(path.join(setDir('l3s-gn1'), 'ground-truth.json'))) {
    console.log(`skipped: the content-bench collections are not at ${COLLECTION} (set CONTENT_BENCH_DIR)`);
    return;
  }
  for (const set of SETS) await measureSet(set);

  // A fresh process: the API phase's heap and threads would weigh on the throughput lines.
  const throughput = fileURLToPath(new URL('./main-content-throughput.ts', import.meta.url));
  const child = spawnSync(process.execPath, ['--import', 'tsx', throughput], { stdio: 'inherit' });
  if (child.status !== 0) throw new Error(`the throughput lines failed (exit ${child.status ?? child.signal})`);
}

await main();
