/**
 * Settle-wait benchmark (not a test): what the render's default settle wait (worker/browser/settle.ts,
 * docs/browser-engines.md "Settling") adds to a render, on Chromium through the engine, against the
 * same render with the wait replaced by `wait_for: "body"` (already there at `load`: the capture
 * right after load, as before the settle wait existed). Two pages of the loopback JS site:
 *   /static         nothing to wait for: the pure cost of confirming quiet (network 300 ms, DOM 200 ms);
 *   /fetch-at-load  content from a request the page makes at load, answered 300 ms later.
 * The two sides alternate render by render (A, B, A, B...) so machine load moves both alike; each row
 * also says how many captures held the late content.
 *
 *   npx tsx bench/settle-bench.ts [--renders 15]
 */
import { parseArgs } from 'node:util';
import { SCRAPE_JOB_TYPE, type ScrapeJob } from '../lib/protocol/index.js';
import { defaultScrapeParams } from '../lib/scrape/defaults.js';
import { findBrowserBinary } from '../worker/browser/binary.js';
import { BrowserEngine } from '../worker/browser/render-engine.js';
import { EgressGuard } from '../worker/egress/guard.js';
import { startJsSite } from '../test/support/js-pages.js';

const { values } = parseArgs({ options: { renders: { type: 'string', default: '15' } } });
const RENDERS = Number(values.renders);
const PAGES = ['/static', '/fetch-at-load'];
const LATE_CONTENT = 'Arrived after load';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

function job(url: string, settle: boolean): ScrapeJob {
  const now = Date.now();
  return {
    type: SCRAPE_JOB_TYPE,
    request_id: `settle-bench-${now}`,
    project_id: 'bench',
    engine: 'chromium',
    params: { ...defaultScrapeParams(), url, js_render: true, ...(settle ? {} : { wait_for: 'body' }) },
    deadline_at: now + 30_000,
    budget_ms: 30_000,
    dispatched_at: now,
    session: null,
    exit: null,
  };
}

interface Side {
  latencies: number[];
  withLateContent: number;
}

async function main(): Promise<void> {
  const binary = findBrowserBinary('chromium', process.env);
  if (binary === null) {
    console.log('chromium: no browser binary on this machine, skipped');
    return;
  }
  const site = await startJsSite();
  const guard = await EgressGuard.start({ policy: { allowLoopback: true } });
  const engine = new BrowserEngine({ name: 'chromium', guard, capacity: 1, executablePath: binary });
  await engine.start();
  const signal = new AbortController().signal;
  const render = async (url: string, settle: boolean, side: Side) => {
    const began = performance.now();
    const page = await engine.fetch(job(url, settle), { workerId: 'bench', signal });
    side.latencies.push(performance.now() - began);
    if (page.text?.includes(LATE_CONTENT)) side.withLateContent += 1;
  };
  const rows: string[] = [];
  try {
    for (const path of PAGES) {
      const url = `${site.origin}${path}`;
      const settled: Side = { latencies: [], withLateContent: 0 };
      const loadOnly: Side = { latencies: [], withLateContent: 0 };
      for (let i = 0; i < 2; i += 1) await render(url, i === 0, { latencies: [], withLateContent: 0 }); // warm-up
      for (let i = 0; i < RENDERS; i += 1) {
        await render(url, true, settled);
        await render(url, false, loadOnly);
      }
      for (const side of [settled, loadOnly]) side.latencies.sort((a, b) => a - b);
      const line = (name: string, side: Side) =>
        `${path.padEnd(15)} ${name.padEnd(30)} median ${percentile(side.latencies, 50).toFixed(0).padStart(5)} ms   p95 ${percentile(side.latencies, 95).toFixed(0).padStart(5)} ms   late content in ${side.withLateContent}/${RENDERS}`;
      rows.push(line('settle wait (default)', settled), line('load only (wait_for: "body")', loadOnly));
      rows.push(`${path.padEnd(15)} ${'added by the settle wait'.padEnd(30)} median ${(percentile(settled.latencies, 50) - percentile(loadOnly.latencies, 50)).toFixed(0).padStart(5)} ms`);
    }
  } finally {
    await engine.stop();
    await guard.close();
    await site.close();
  }
  console.log(`Settle wait on Chromium, ${RENDERS} renders per side, sides alternating (wall clock; the machine may be shared):`);
  for (const row of rows) console.log(row);
}

await main();
