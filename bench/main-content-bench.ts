/**
 * main_content_only against Mozilla Readability on ../shared/content-bench (real news pages with
 * human-marked article text). Every page is served from a loopback target and scraped THROUGH THE
 * API (embedded service) as text with main_content_only=true; Readability 0.6 on linkedom reads
 * the same pages in the same run; the collection's scorer rates both. Then, in a fresh process
 * (bench/main-content-throughput.ts), text throughput against Readability and markdown throughput of
 * the content pipeline against turndown alone on the same pages. Prints figures; not a test.
 * Run: npx tsx bench/main-content-bench.ts (CONTENT_BENCH_DIR overrides where the collection is).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { jsonPost, startEmbedded } from '../test/support/embedded.js';
import { COLLECTION, loadPages, megabytesOf, SET, type Page } from './main-content-pages.js';

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
  let next = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < pages.length) {
          const page = pages[next++];
          const response = await scrape(page);
          const text = await response.text();
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

interface Scores {
  table: string;
  metrics: Record<string, { f1: number; precision: number; recall: number }>;
}

function score(outputs: Record<string, Record<string, { articleBody: string }>>): Scores {
  const dir = mkdtempSync(path.join(tmpdir(), 'trawler-content-bench-'));
  mkdirSync(path.join(dir, 'output'));
  copyFileSync(path.join(SET, 'ground-truth.json'), path.join(dir, 'ground-truth.json'));
  for (const [name, output] of Object.entries(outputs)) writeFileSync(path.join(dir, 'output', `${name}.json`), JSON.stringify(output));
  const result = spawnSync('python3', [path.join(COLLECTION, 'evaluate.py'), '--n-bootstrap', '100', '--output', 'scores.json'], { cwd: dir, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`evaluate.py failed: ${result.stderr}`);
  const metrics = JSON.parse(readFileSync(path.join(dir, 'scores.json'), 'utf8')) as Scores['metrics'];
  return { table: `${result.stdout.trim()}\n(outputs kept in ${dir})`, metrics };
}

async function main(): Promise<void> {
  if (!existsSync(path.join(SET, 'ground-truth.json'))) {
    console.log(`skipped: the content-bench collection is not at ${COLLECTION} (set CONTENT_BENCH_DIR)`);
    return;
  }
  const pages = loadPages();
  const megabytes = megabytesOf(pages);
  console.log(`${pages.length} pages, ${megabytes.toFixed(1)} MB of HTML; text, main_content_only=true (machine may be shared: compare the two sides, not runs)`);
  const ours = await scrapeThroughApi(pages);
  const reference = readability(pages);
  const { table, metrics } = score({ trawler: ours.output, readability: reference.output });
  console.log(table);
  const row = (label: string, name: string, seconds: number): void => {
    const m = metrics[name];
    console.log(`${label.padEnd(44)} F1 ${m.f1.toFixed(3)}  precision ${m.precision.toFixed(3)}  recall ${m.recall.toFixed(3)}  ${(megabytes / seconds).toFixed(2).padStart(6)} MB/s`);
  };
  row(`trawler through the API (${CONCURRENCY} at a time; ${ours.failed})`, 'trawler', ours.seconds);
  row('readability 0.6 on linkedom, one core', 'readability', reference.seconds);

  // A fresh process: the API phase's heap and threads would weigh on the throughput lines.
  const throughput = fileURLToPath(new URL('./main-content-throughput.ts', import.meta.url));
  const child = spawnSync(process.execPath, ['--import', 'tsx', throughput], { stdio: 'inherit' });
  if (child.status !== 0) throw new Error(`the throughput lines failed (exit ${child.status ?? child.signal})`);
}

await main();
