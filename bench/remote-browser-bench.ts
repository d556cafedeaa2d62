/**
 * Remote-browser benchmark (not a test): GET /v1/browser in the embedded default against raw
 * Playwright connectOverCDP on a local Chromium's own DevTools port (same binary and flags, no gateway,
 * relay, CDP filter or egress guard), rounds interleaved so load on the machine hits both sides alike:
 * - session start: connectOverCDP until a new page is open;
 * - page load: goto of a local page;
 * - CDP round trip: page.evaluate of a constant (one Runtime.callFunctionOn each way).
 *
 *   npx tsx bench/remote-browser-bench.ts [--sessions 10] [--round-trips 200]
 */
import { parseArgs } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { findBrowserBinary } from '../worker/browser/binary.js';
import { launchCdpBrowser } from '../worker/browser/remote/cdp-browser.js';
import { keyFor } from '../test/support/accounts.js';
import { startEmbedded } from '../test/support/embedded.js';
import { startJsSite } from '../test/support/js-pages.js';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '10' }, 'round-trips': { type: 'string', default: '200' } } });
const SESSIONS = Number(values.sessions);
const ROUND_TRIPS = Number(values['round-trips']);

const binary = findBrowserBinary('chromium', process.env);
if (!binary) {
  console.log('remote-browser bench: no Chromium on this machine, skipped');
  process.exit(0);
}

interface Figures {
  start: number[];
  load: number[];
  roundTrip: number[];
}

async function oneSession(connect: () => Promise<Browser>, pageUrl: string, into: Figures): Promise<void> {
  let started = performance.now();
  const browser = await connect();
  const page = await (browser.contexts()[0] ?? (await browser.newContext())).newPage();
  into.start.push(performance.now() - started);
  started = performance.now();
  await page.goto(pageUrl);
  into.load.push(performance.now() - started);
  for (let i = 0; i < ROUND_TRIPS; i += 1) {
    started = performance.now();
    await page.evaluate(() => 1);
    into.roundTrip.push(performance.now() - started);
  }
  await browser.close();
}

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
  return `median ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms (n=${sorted.length})`;
}

const site = await startJsSite();
const service = await startEmbedded({ engines: ['fetch', 'chromium'] });
const key = await keyFor(service.db, service.projectId, ['browser'], 'bench');
const raw = await launchCdpBrowser(binary, `trawler-bench-raw-${process.pid}`);
const remoteUrl = `${service.url.replace(/^http/, 'ws')}/v1/browser?apikey=${key}`;
const pageUrl = `${site.origin}/static`;
const remote: Figures = { start: [], load: [], roundTrip: [] };
const direct: Figures = { start: [], load: [], roundTrip: [] };
try {
  // One warm-up each: the worker's shared browser starts on the first lease.
  await oneSession(() => chromium.connectOverCDP(remoteUrl), pageUrl, { start: [], load: [], roundTrip: [] });
  await oneSession(() => chromium.connectOverCDP(raw.endpoint), pageUrl, { start: [], load: [], roundTrip: [] });
  for (let i = 0; i < SESSIONS; i += 1) {
    await oneSession(() => chromium.connectOverCDP(remoteUrl), pageUrl, remote);
    await oneSession(() => chromium.connectOverCDP(raw.endpoint), pageUrl, direct);
  }
  console.log(`remote browser vs raw Playwright connectOverCDP on the same Chromium, ${SESSIONS} sessions each, interleaved`);
  for (const [name, key] of [['session start (connect + new page)', 'start'], ['page load (goto local page)', 'load'], ['CDP round trip (page.evaluate)', 'roundTrip']] as const) {
    const ratio = median(remote[key]) / median(direct[key]);
    console.log(`${name}\n  /v1/browser: ${summary(remote[key])}\n  raw:         ${summary(direct[key])}\n  ratio of medians: ${ratio.toFixed(2)}`);
  }
} finally {
  await raw.kill();
  await service.stop();
  await site.close();
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}
