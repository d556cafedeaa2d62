/**
 * Where converting on the caller's thread stops paying (issue 31, docs/content.md "Where a page is
 * converted"): the same markdown with main_content_only, once on the caller's thread (what the pool
 * does for a page within CONTENT_INLINE_MAX_CHARS and convertInlineMaxTags) and once through a
 * ContentPool thread and back, page by page, alternated in blocks in one process. Pages: the 2.4 KB
 * fixture article and every BENCH_EVERY-th page (default 8) of the three development collections,
 * grouped by how many tags they open. Figures: CPU of the whole process (every thread) per page, and
 * wall time per page, one page at a time; thread minus inline is what the hop costs (negative: what it
 * saves). CPU is the figure that holds on a loaded machine (the hop's copies, wake-ups and the
 * thread's own heap all cost CPU); wall on an idle one, where the thread's second core is free.
 * BENCH_ROUNDS (default 2). Runs the compiled build (`npx tsc -p tsconfig.json`). Prints figures; not a test.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultScrapeParams } from '../lib/scrape/defaults.js';
import type { ContentInput } from '../worker/content/pipeline.js';
import type { ContentPool as ContentPoolType } from '../worker/content/pool.js';
import type { ContentTaskResult } from '../worker/content/pool-task.js';
import { loadPages, SETS } from './main-content-pages.js';
import { procCpuMicros } from './proc-cpu.js';
import { serviceEntry } from './service-entry.js';

/**
 * Both sides run the compiled build, as the service does: under tsx the thread loads the pipeline
 * through tsx's loader too, whose wrapped closures made the thread's conversion of a 126 KB page take
 * twice the CPU of the same code on this thread and would count as the hop's.
 */
async function compiled<T>(module: string): Promise<T> {
  serviceEntry(); // refuses a missing or stale build
  return (await import(pathToFileURL(path.resolve('dist', module)).href)) as T;
}

const EVERY = Number(process.env.BENCH_EVERY ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** Each page is converted until its block has used at least this much CPU (the clock ticks every 10 ms). */
const BLOCK_CPU_MICROS = 100_000;
const BUCKETS: Array<[string, number]> = [
  ['at most 160 tags', 160],
  ['161-400 tags', 400],
  ['401-1,000 tags', 1_000],
  ['1,001-2,500 tags', 2_500],
  ['over 2,500 tags', Infinity],
];

function tagsOf(text: string): number {
  let count = 0;
  for (let at = text.indexOf('<'); at >= 0; at = text.indexOf('<', at + 1)) count += 1;
  return count;
}

function inputOf(url: string, text: string): ContentInput {
  const params = { ...defaultScrapeParams(), url, response_format: 'markdown' as const, main_content_only: true };
  return { page: { finalUrl: url, status: 200, mediaType: 'text/html', text }, params, extras: {}, engine: 'fetch' };
}

function selfCpu(): number {
  return procCpuMicros('/proc/self/stat') ?? 0;
}

interface Cost {
  cpu: number;
  wall: number;
  runs: number;
}

async function costOf(convert: () => Promise<unknown> | unknown): Promise<Cost> {
  await convert(); // the first conversion of a page warms nothing the next one needs; it is not counted
  const cpu0 = selfCpu();
  const wall0 = process.hrtime.bigint();
  let runs = 0;
  while (selfCpu() - cpu0 < BLOCK_CPU_MICROS || runs < 3) {
    await convert();
    runs += 1;
  }
  return { cpu: (selfCpu() - cpu0) / runs, wall: Number(process.hrtime.bigint() - wall0) / 1000 / runs, runs };
}

async function main(): Promise<void> {
  const pages: Array<{ name: string; input: ContentInput; tags: number; chars: number }> = [];
  const fixture = readFileSync('test/fixtures/pages/article.html', 'utf8');
  pages.push({ name: 'fixture', input: inputOf('http://127.0.0.1:8080/article.html', fixture), tags: tagsOf(fixture), chars: fixture.length });
  for (const set of SETS) {
    loadPages(set).forEach((page, index) => {
      if (index % EVERY !== 0) return;
      pages.push({ name: `${set}/${page.id}`, input: inputOf(`http://127.0.0.1:8080/${page.id}.html`, page.html), tags: tagsOf(page.html), chars: page.html.length });
    });
  }
  const { ContentPool } = await compiled<{ ContentPool: typeof ContentPoolType }>('worker/content/pool.js');
  const runContentTask = (await compiled<{ default: (input: ContentInput) => ContentTaskResult }>('worker/content/pool-task.js')).default;
  const pool = new ContentPool({ convertInlineMaxChars: 0, threads: 1 });
  const inline = (input: ContentInput): unknown => runContentTask(input);
  const onThread = (input: ContentInput): Promise<unknown> => pool.run(input).catch(() => undefined);
  // Every page once each way first: the thread's and this thread's code compiled before anything counts.
  for (const page of pages) {
    inline(page.input);
    await onThread(page.input);
  }
  console.log(`markdown with main content, ${pages.length} pages (fixture + every ${EVERY}th of ${SETS.join(', ')}), one at a time, ${ROUNDS} rounds`);
  console.log('bucket                | pages | median chars | inline CPU µs | thread CPU µs | hop costs CPU | inline wall µs | thread wall µs | hop costs wall');
  for (let round = 1; round <= ROUNDS; round += 1) {
    const sums = new Map<string, { pages: number; chars: number[]; inline: Cost; thread: Cost }>();
    for (const page of pages) {
      const [label] = BUCKETS.find(([, most]) => page.tags <= most)!;
      const key = page.name === 'fixture' ? 'the 2.4 KB fixture' : label;
      const first = round % 2 === 1;
      const a = await costOf(first ? () => inline(page.input) : () => onThread(page.input));
      const b = await costOf(first ? () => onThread(page.input) : () => inline(page.input));
      const [inlineCost, threadCost] = first ? [a, b] : [b, a];
      const sum = sums.get(key) ?? { pages: 0, chars: [], inline: { cpu: 0, wall: 0, runs: 0 }, thread: { cpu: 0, wall: 0, runs: 0 } };
      sum.pages += 1;
      sum.chars.push(page.chars);
      sum.inline.cpu += inlineCost.cpu;
      sum.inline.wall += inlineCost.wall;
      sum.thread.cpu += threadCost.cpu;
      sum.thread.wall += threadCost.wall;
      sums.set(key, sum);
    }
    console.log(`round ${round}`);
    for (const key of ['the 2.4 KB fixture', ...BUCKETS.map(([label]) => label)]) {
      const sum = sums.get(key);
      if (!sum) continue;
      const median = [...sum.chars].sort((x, y) => x - y)[Math.floor(sum.chars.length / 2)]!;
      const per = (value: number): string => (value / sum.pages).toFixed(0).padStart(13);
      console.log(
        `${key.padEnd(21)} | ${String(sum.pages).padStart(5)} | ${String(median).padStart(12)} | ${per(sum.inline.cpu)} | ${per(sum.thread.cpu)} | ${per(sum.thread.cpu - sum.inline.cpu)} | ${per(sum.inline.wall).padStart(14)} | ${per(sum.thread.wall).padStart(14)} | ${per(sum.thread.wall - sum.inline.wall).padStart(14)}`,
      );
    }
  }
  await pool.close();
}

await main();
