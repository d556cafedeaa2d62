/**
 * main_content_only against Mozilla Readability on ../shared/content-bench (real news pages with
 * human-marked article text). Every page is served from a loopback target and scraped THROUGH THE
 * API (embedded service) as text with main_content_only=true; Readability 0.6 on linkedom reads
 * the same pages in the same run; the collection's scorer rates both. Then markdown throughput of
 * the content pipeline against turndown alone on the same pages. Prints figures; not a test.
 * Run: npx tsx bench/main-content-bench.ts (CONTENT_BENCH_DIR overrides where the collection is).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Readability } from '@mozilla/readability';
import { getEncoding } from 'encoding-sniffer';
import iconv from 'iconv-lite';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { htmlInput } from '../test/content/helpers.js';
import { jsonPost, startEmbedded } from '../test/support/embedded.js';
import { processContent } from '../worker/content/pipeline.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const COLLECTION = process.env.CONTENT_BENCH_DIR ?? path.resolve(ROOT, '..', 'shared', 'content-bench');
const SET = path.join(COLLECTION, 'l3s-gn1');
const CONCURRENCY = 2;

interface Page {
  id: string;
  gzipped: Buffer;
  html: string;
  bytes: number;
}

function loadPages(): Page[] {
  return readdirSync(path.join(SET, 'html'))
    .filter((name) => name.endsWith('.html.gz'))
    .sort()
    .map((name) => {
      const gzipped = readFileSync(path.join(SET, 'html', name));
      const raw = gunzipSync(gzipped);
      return { id: name.replace(/\.html\.gz$/, ''), gzipped, html: iconv.decode(raw, getEncoding(raw) ?? 'utf-8'), bytes: raw.length };
    });
}

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
  const service = await startEmbedded({ engines: ['fetch'], env: { DEFAULT_MONTHLY_CREDITS: '100000000' } });
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

function timed(pages: Page[], convert: (page: Page) => unknown): number {
  const started = performance.now();
  for (const page of pages) {
    try {
      convert(page);
    } catch {
      // a page either side cannot convert costs its time and nothing else
    }
  }
  return (performance.now() - started) / 1000;
}

function score(outputs: Record<string, Record<string, { articleBody: string }>>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'trawler-content-bench-'));
  mkdirSync(path.join(dir, 'output'));
  copyFileSync(path.join(SET, 'ground-truth.json'), path.join(dir, 'ground-truth.json'));
  for (const [name, output] of Object.entries(outputs)) writeFileSync(path.join(dir, 'output', `${name}.json`), JSON.stringify(output));
  const result = spawnSync('python3', [path.join(COLLECTION, 'evaluate.py'), '--n-bootstrap', '100'], { cwd: dir, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`evaluate.py failed: ${result.stderr}`);
  return `${result.stdout.trim()}\n(outputs kept in ${dir})`;
}

async function main(): Promise<void> {
  if (!existsSync(path.join(SET, 'ground-truth.json'))) {
    console.log(`skipped: the content-bench collection is not at ${COLLECTION} (set CONTENT_BENCH_DIR)`);
    return;
  }
  const pages = loadPages();
  const megabytes = pages.reduce((sum, page) => sum + page.bytes, 0) / 1e6;
  console.log(`${pages.length} pages, ${megabytes.toFixed(1)} MB of HTML; text, main_content_only=true`);
  const ours = await scrapeThroughApi(pages);
  const reference = readability(pages);
  console.log(score({ trawler: ours.output, readability: reference.output }));
  const line = (label: string, seconds: number) => console.log(`${label.padEnd(44)} ${(megabytes / seconds).toFixed(2).padStart(6)} MB/s`);
  line(`trawler through the API (${CONCURRENCY} at a time; ${ours.failed})`, ours.seconds);
  line('trawler text pipeline, in-process, one core', timed(pages, (page) => processContent(htmlInput(page.html, 'http://127.0.0.1/', { response_format: 'text' }))));
  line('readability 0.6 on linkedom, one core', reference.seconds);
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
  line('markdown: turndown alone (whole page)', timed(pages, (page) => turndown.turndown(page.html)));
  line('markdown: trawler main_content_only', timed(pages, (page) => processContent(htmlInput(page.html, 'http://127.0.0.1/', { response_format: 'markdown' }))));
}

await main();
