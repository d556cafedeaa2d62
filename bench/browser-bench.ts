/**
 * Render benchmark (not a test): on the same local JavaScript page, render latency (median, p95)
 * and pages per second for each browser engine against raw playwright-core on the same binary
 * (`newContext` + `goto` + `content`), resident memory per concurrent render, and memory over a long run
 * (obscura: raw playwright and through the API), each with its ratio to raw playwright from the same run,
 * and CPU per render (bench process plus browsers), the figure least moved by other load on the machine.
 *
 *   npx tsx bench/browser-bench.ts [--renders 40] [--concurrency 2] [--long 1000] [--engines obscura,chromium]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { SCRAPE_JOB_TYPE, type ScrapeJob } from '../lib/protocol/index.js';
import { defaultScrapeParams } from '../lib/scrape/defaults.js';
import { findBrowserBinary } from '../worker/browser/binary.js';
import { BrowserEngine } from '../worker/browser/render-engine.js';
import { EgressGuard } from '../worker/egress/guard.js';
import { startJsSite } from '../test/support/js-pages.js';
import { startEmbedded } from '../test/support/embedded.js';

const { values } = parseArgs({
  options: { renders: { type: 'string', default: '40' }, concurrency: { type: 'string', default: '2' }, long: { type: 'string', default: '1000' }, engines: { type: 'string', default: 'obscura,chromium' } },
});
const RENDERS = Number(values.renders);
const CONCURRENCY = Number(values.concurrency);
/** Renders of the memory run (0: skipped). */
const LONG = Number(values.long);
const ENGINES = values.engines.split(',') as Array<'obscura' | 'chromium'>;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** pid, parent pid, process group and CPU ticks (own and reaped children's) of every process, from /proc. */
function processTable(): Array<{ pid: number; ppid: number; pgrp: number; ticks: number }> {
  const rows: Array<{ pid: number; ppid: number; pgrp: number; ticks: number }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      rows.push({ pid: Number(entry), ppid: Number(fields[1]), pgrp: Number(fields[2]), ticks });
    } catch {
      // exited meanwhile
    }
  }
  return rows;
}

/**
 * CPU milliseconds used so far by this process (gateway, worker and their threads run in it) and by
 * the browsers' process groups. On a shared machine wall-clock rates move with other load; CPU per
 * render moves much less, so it is the steadier figure to compare (a renderer that exited and was
 * not yet reaped is missed, a small undercount on both sides).
 */
function cpuMs(): number {
  const table = processTable();
  const leaders = new Set(table.filter((p) => p.ppid === process.pid).map((p) => p.pid));
  let ticks = 0;
  for (const p of table) if (leaders.has(p.pgrp)) ticks += p.ticks;
  const own = process.cpuUsage();
  return (ticks * 1000) / USER_HZ + (own.user + own.system) / 1000;
}

/**
 * Proportional resident memory (PSS, MiB) of every process in the groups of this process's
 * children (the browsers); PSS splits shared pages between processes instead of counting them in each.
 */
function browserPssMiB(): number {
  const table = processTable();
  const leaders = new Set(table.filter((p) => p.ppid === process.pid).map((p) => p.pid));
  let kib = 0;
  for (const { pid, pgrp } of table) {
    if (!leaders.has(pgrp)) continue;
    try {
      const match = /^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      kib += Number(match?.[1] ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return kib / 1024;
}

interface Row {
  name: string;
  medianMs: number;
  p95Ms: number;
  pagesPerSecond: number;
  rssPerRenderMiB: number;
  /** CPU of the bench process and the browsers per render in the concurrent phase, ms. */
  cpuPerRenderMs: number;
}

/** Sequential renders for latency, then CONCURRENCY at once for throughput and memory. */
async function measure(name: string, renderOnce: () => Promise<void>): Promise<Row> {
  for (let i = 0; i < 3; i += 1) await renderOnce(); // warm-up
  const latencies: number[] = [];
  for (let i = 0; i < RENDERS; i += 1) {
    const began = performance.now();
    await renderOnce();
    latencies.push(performance.now() - began);
  }
  latencies.sort((a, b) => a - b);
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, browserPssMiB())), 100);
  let next = 0;
  const cpuBefore = cpuMs();
  const began = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < RENDERS) {
        next += 1;
        await renderOnce();
      }
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  const cpuPerRenderMs = (cpuMs() - cpuBefore) / RENDERS;
  clearInterval(sampler);
  return {
    name,
    medianMs: percentile(latencies, 50),
    p95Ms: percentile(latencies, 95),
    pagesPerSecond: RENDERS / seconds,
    rssPerRenderMiB: peakRss / CONCURRENCY,
    cpuPerRenderMs,
  };
}

function scrapeJob(engine: 'obscura' | 'chromium', url: string): ScrapeJob {
  const now = Date.now();
  return {
    type: SCRAPE_JOB_TYPE,
    request_id: `bench-${now}`,
    project_id: 'bench',
    engine,
    params: { ...defaultScrapeParams(), url, js_render: true, wait_for: '#title' },
    deadline_at: now + 30_000,
    budget_ms: 30_000,
    dispatched_at: now,
    session: null,
    exit: null,
  };
}

const launchArgs = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'];

/** Raw playwright: one browser per concurrent render, a fresh context per page, as the engine does. */
async function rawRenderer(binary: string, url: string): Promise<{ render: () => Promise<void>; close: () => Promise<void> }> {
  const browsers = await Promise.all(Array.from({ length: CONCURRENCY }, () => chromium.launch({ executablePath: binary, args: launchArgs })));
  let turn = 0;
  return {
    render: async () => {
      const context = await browsers[turn++ % browsers.length].newContext();
      const page = await context.newPage();
      await page.goto(url);
      await page.waitForSelector('#title');
      await page.content();
      await context.close();
    },
    close: async () => void (await Promise.all(browsers.map((b) => b.close()))),
  };
}

/** An embedded service running only `engine`, so the browsers measured are that engine's alone. */
async function apiRenderer(engine: 'obscura' | 'chromium', url: string, format: 'html' | 'markdown') {
  const service = await startEmbedded({ engines: [engine], env: { WORKER_CAPACITY: String(CONCURRENCY) }, checkBusMessages: false });
  await service.db.query('UPDATE organizations SET rate_limit_per_second = 100000, concurrency_limit = 1000, monthly_credits_micro = 1e15');
  return {
    render: async () => {
      const response = await fetch(`${service.url}/v1/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${service.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url, engine, wait_for: '#title', cache: false, response_format: format }),
      });
      if (response.status !== 200) throw new Error(`scrape answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    },
    close: () => service.stop(),
  };
}

interface LongRow {
  name: string;
  firstPssMiB: number;
  lastPssMiB: number;
  firstRssMiB: number;
  lastRssMiB: number;
}

/** LONG renders at CONCURRENCY: browsers' PSS and this process's RSS after the first tenth and at the end. */
async function longRun(name: string, render: () => Promise<void>): Promise<LongRow> {
  let next = 0;
  let first: { pss: number; rss: number } | null = null;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < LONG) {
        next += 1;
        await render();
        if (first === null && next >= LONG / 10) first = { pss: browserPssMiB(), rss: process.memoryUsage.rss() / 2 ** 20 };
      }
    }),
  );
  const firstSample = first ?? { pss: NaN, rss: NaN };
  return { name, firstPssMiB: firstSample.pss, lastPssMiB: browserPssMiB(), firstRssMiB: firstSample.rss, lastRssMiB: process.memoryUsage.rss() / 2 ** 20 };
}

async function main(): Promise<void> {
  const site = await startJsSite();
  const guard = await EgressGuard.start({ policy: { allowLoopback: true } });
  const url = `${site.origin}/client-rendered`;
  const rows: Array<Row & { vsRaw: Row | null }> = [];
  const longRows: LongRow[] = [];
  try {
    for (const engineName of ENGINES) {
      const binary = findBrowserBinary(engineName, process.env);
      if (binary === null) {
        console.log(`${engineName}: no browser binary on this machine, skipped`);
        continue;
      }
      const raw = await rawRenderer(binary, url);
      const rawRow = await measure(`raw playwright (${binary.split('/').pop()})`, raw.render);
      rows.push({ ...rawRow, vsRaw: null });
      if (LONG > 0 && engineName === 'obscura') longRows.push(await longRun(rawRow.name, raw.render));
      await raw.close();

      const engine = new BrowserEngine({ name: engineName, guard, capacity: CONCURRENCY, executablePath: binary });
      await engine.start();
      const signal = new AbortController().signal;
      rows.push({ ...(await measure(`${engineName} engine`, () => engine.fetch(scrapeJob(engineName, url), { workerId: 'bench', signal }).then(() => undefined))), vsRaw: rawRow });
      await engine.stop();

      // html is the work raw playwright does (the rendered document); markdown adds main-content extraction.
      for (const format of ['html', 'markdown'] as const) {
        const api = await apiRenderer(engineName, url, format);
        try {
          rows.push({ ...(await measure(`${engineName} through /v1/scrape, ${format}`, api.render)), vsRaw: rawRow });
          if (LONG > 0 && engineName === 'obscura' && format === 'html') longRows.push(await longRun(`${engineName} through /v1/scrape`, api.render));
        } finally {
          await api.close();
        }
      }
    }
  } finally {
    await guard.close();
    await site.close();
  }
  console.log(`\n${RENDERS} renders of ${url}; throughput and memory at concurrency ${CONCURRENCY}; ratios against raw playwright on the same binary\n`);
  console.table(
    rows.map((r) => ({
      variant: r.name,
      'median ms': r.medianMs.toFixed(1),
      'p95 ms': r.p95Ms.toFixed(1),
      'pages/s': r.pagesPerSecond.toFixed(2),
      'PSS MiB per render': r.rssPerRenderMiB.toFixed(0),
      'latency x raw (<= 1.1)': r.vsRaw ? (r.medianMs / r.vsRaw.medianMs).toFixed(2) : '',
      'pages/s x raw (>= 0.9)': r.vsRaw ? (r.pagesPerSecond / r.vsRaw.pagesPerSecond).toFixed(2) : '',
      'PSS x raw (<= 1.1)': r.vsRaw ? (r.rssPerRenderMiB / r.vsRaw.rssPerRenderMiB).toFixed(2) : '',
      'CPU ms per render': r.cpuPerRenderMs.toFixed(0),
      'CPU x raw': r.vsRaw ? (r.cpuPerRenderMs / r.vsRaw.cpuPerRenderMs).toFixed(2) : '',
    })),
  );
  if (longRows.length > 0) {
    console.log(`\nmemory over ${LONG} renders at concurrency ${CONCURRENCY}: after the first ${LONG / 10} and at the end (flat: last/first near 1)\n`);
    console.table(
      longRows.map((r) => ({
        variant: r.name,
        'browsers PSS MiB first': r.firstPssMiB.toFixed(0),
        'browsers PSS MiB last': r.lastPssMiB.toFixed(0),
        'last/first': (r.lastPssMiB / r.firstPssMiB).toFixed(2),
        'bench process RSS MiB first': r.firstRssMiB.toFixed(0),
        'bench process RSS MiB last': r.lastRssMiB.toFixed(0),
      })),
    );
  }
}

await main();
