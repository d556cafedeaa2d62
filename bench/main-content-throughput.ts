/**
 * Throughput lines of bench/main-content-bench.ts, run in a process of their own (the bench spawns
 * this module after its API phase, whose heap and threads would otherwise weigh on them): in-process
 * text main_content_only beside Readability, and markdown main_content_only beside turndown alone,
 * on every third page of the three development collections, each pair interleaved page by page so that a change of load on the shared
 * machine weighs on both sides alike. Wall-clock MB/s and CPU time per page for both sides, and
 * their ratio, per round (the first round also warms the JIT up for both sides).
 * Run alone: npx tsx bench/main-content-throughput.ts (ROUNDS=n, default 3).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { htmlInput } from '../test/content/content-input.js';
import { processContent } from '../worker/content/pipeline.js';
import { loadPages, megabytesOf, setDir, SETS, type Page } from './main-content-pages.js';

/** The throughput lines run on every THROUGHPUT_EVERY-th page: a fixed amount of work, whatever the load. */
const THROUGHPUT_EVERY = 3;
const ROUNDS = Number(process.env.ROUNDS ?? 3);

interface Spent {
  seconds: number;
  cpuMs: number;
}

/** Wall-clock seconds and CPU milliseconds each side spends on the same pages, interleaved page by page. */
function timedPair(pages: Page[], left: (page: Page) => unknown, right: (page: Page) => unknown): [Spent, Spent] {
  const spent: [Spent, Spent] = [{ seconds: 0, cpuMs: 0 }, { seconds: 0, cpuMs: 0 }];
  const run = (side: 0 | 1, convert: (page: Page) => unknown, page: Page): void => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    try {
      convert(page);
    } catch {
      // a page either side cannot convert costs its time and nothing else
    }
    spent[side].seconds += (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    spent[side].cpuMs += (used.user + used.system) / 1000;
  };
  for (const page of pages) {
    run(0, left, page);
    run(1, right, page);
  }
  return spent;
}

function main(): void {
  if (!existsSync(path.join(setDir('l3s-gn1'), 'html'))) {
    console.log(`skipped: the content-bench collections are not at ${setDir('l3s-gn1')} (set CONTENT_BENCH_DIR)`);
    return;
  }
  const sample = SETS.flatMap((set) => loadPages(set)).filter((_, index) => index % THROUGHPUT_EVERY === 0);
  const megabytes = megabytesOf(sample);
  const line = (label: string, side: Spent): void =>
    console.log(`${label.padEnd(44)} ${(megabytes / side.seconds).toFixed(2).padStart(6)} MB/s  ${(side.cpuMs / sample.length).toFixed(2).padStart(6)} ms CPU/page`);
  const ratio = (label: string, ours: Spent, theirs: Spent): void =>
    console.log(`${label}: ${(theirs.seconds / ours.seconds).toFixed(2)}x the throughput (CPU time: ${(theirs.cpuMs / ours.cpuMs).toFixed(2)}x)`);
  console.log(`throughput on every ${THROUGHPUT_EVERY}rd page (${sample.length} pages, ${megabytes.toFixed(1)} MB), one core, interleaved page by page, in a process of its own:`);
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
  for (let round = 1; round <= ROUNDS; round += 1) {
    console.log(`round ${round} of ${ROUNDS}${round === 1 ? ' (warms both sides up)' : ''}`);
    const [text, readability] = timedPair(
      sample,
      (page) => processContent(htmlInput(page.html, 'http://127.0.0.1/', { response_format: 'text' })),
      (page) => new Readability(parseHTML(page.html).document as unknown as Document).parse(),
    );
    line('trawler text main_content_only, in-process', text);
    line('readability 0.6 on linkedom', readability);
    ratio('text main_content_only / readability', text, readability);
    const [markdown, alone] = timedPair(
      sample,
      (page) => processContent(htmlInput(page.html, 'http://127.0.0.1/', { response_format: 'markdown' })),
      (page) => turndown.turndown(page.html),
    );
    line('markdown: trawler main_content_only', markdown);
    line('markdown: turndown alone (whole page)', alone);
    ratio('markdown main_content_only / turndown alone', markdown, alone);
  }
}

main();
