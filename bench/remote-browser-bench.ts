/**
 * Remote-browser benchmark (not a test): GET /v1/browser in the embedded default against raw
 * Playwright on a local Chromium it launched (same binary; no gateway, relay, CDP filter or egress
 * guard), rounds interleaved so load on the machine hits both sides alike:
 * - session start: remote: connectOverCDP until a new page is open; raw: newContext + newPage on the warm browser;
 * - page load: goto of a local page;
 * - CDP round trip: page.evaluate of a constant (one Runtime.callFunctionOn each way).
 *
 *   npx tsx bench/remote-browser-bench.ts [--sessions 10] [--round-trips 200]
 */
import { parseArgs } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findBrowserBinary } from '../worker/browser/binary.js';
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

/** A session of either side: its first page open, and how to end it. */
type Opened = { page: Page; close(): Promise<void> };

async function oneSession(open: () => Promise<Opened>, pageUrl: string, into: Figures): Promise<void> {
  let started = performance.now();
  const { page, close } = await open();
  into.start.push(performance.now() - started);
  started = performance.now();
  await page.goto(pageUrl);
  into.load.push(performance.now() - started);
  for (let i = 0; i < ROUND_TRIPS; i += 1) {
    started = performance.now();
    await page.evaluate(() => 1);
    into.roundTrip.push(performance.now() - started);
  }
  await close();
}

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
  return `median ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms (n=${sorted.length})`;
}

const site = await startJsSite();
const service = await startEmbedded({ engines: ['fetch', 'chromium'] });
const key = await keyFor(service.db, service.projectId, ['browser'], 'bench');
const raw = await chromium.launch({ executablePath: binary });
const remoteUrl = `${service.url.replace(/^http/, 'ws')}/v1/browser?apikey=${key}`;
const pageUrl = `${site.origin}/static`;
const remote: Figures = { start: [], load: [], roundTrip: [] };
const direct: Figures = { start: [], load: [], roundTrip: [] };
try {
  const openRemote = async (): Promise<Opened> => {
    const browser: Browser = await chromium.connectOverCDP(remoteUrl);
    return { page: await browser.contexts()[0].newPage(), close: () => browser.close() };
  };
  const openRaw = async (): Promise<Opened> => {
    const context = await raw.newContext();
    return { page: await context.newPage(), close: () => context.close() };
  };
  // One warm-up each: the worker's shared browser starts on the first lease.
  await oneSession(openRemote, pageUrl, { start: [], load: [], roundTrip: [] });
  await oneSession(openRaw, pageUrl, { start: [], load: [], roundTrip: [] });
  for (let i = 0; i < SESSIONS; i += 1) {
    await oneSession(openRemote, pageUrl, remote);
    await oneSession(openRaw, pageUrl, direct);
  }
  console.log(`remote browser (connectOverCDP to /v1/browser) vs raw Playwright on a launched local Chromium (newContext), ${SESSIONS} sessions each, interleaved`);
  for (const [name, key] of [['session start (connect + new page)', 'start'], ['page load (goto local page)', 'load'], ['CDP round trip (page.evaluate)', 'roundTrip']] as const) {
    const ratio = median(remote[key]) / median(direct[key]);
    console.log(`${name}\n  /v1/browser: ${summary(remote[key])}\n  raw:         ${summary(direct[key])}\n  ratio of medians: ${ratio.toFixed(2)}`);
  }
} finally {
  await raw.close();
  await service.stop();
  await site.close();
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}
