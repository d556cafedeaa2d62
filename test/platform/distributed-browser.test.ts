import { chromium } from 'playwright-core';
import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../lib/apikeys.js';
import { newId } from '../../lib/ids.js';
import { startJsSite, type JsSite } from '../support/js-pages.js';
import { until } from '../support/poll.js';
import { browsersOf } from '../support/remote-browser.js';
import { byMessage, startProgram, type Program } from '../support/programs.js';
import { NATS_URL, createTestDatabase, distributedServicesAvailable } from '../support/services.js';

// Under CI=true a missing PostgreSQL or NATS throws here and fails the run instead of skipping.
const available = await distributedServicesAvailable();

describe.skipIf(!available)('distributed mode: GET /v1/browser relayed from the gateway process to a worker process', () => {
  const secret = generateApiKey('live');
  const namespace = `t${newId().toLowerCase()}`;
  let database: { url: string; drop(): Promise<void> };
  let site: JsSite;
  let gateway: Program;
  let worker: Program;
  let wsBase: string;

  const common = () => ({ NATS_URL, NATS_NAMESPACE: namespace, HOST: '127.0.0.1', TRAWLER_ALLOW_LOOPBACK_TARGETS: 'true', HEARTBEAT_INTERVAL_MS: '300' });

  async function entryOf(requestId: string): Promise<{ credits_micro: number; features: { remote_browser: { end_reason: string } } }> {
    return until(
      async () => (await (await fetch(`${wsBase.replace(/^ws/, 'http')}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${secret}` } })).json()) as Record<string, unknown>,
      (body) => body.engine === 'chromium' && typeof body.credits_micro === 'number',
    ) as never;
  }

  async function browserWorkers() {
    const response = await fetch(`${wsBase.replace(/^ws/, 'http')}/v1/workers`, { headers: { authorization: `Bearer ${secret}` } });
    return ((await response.json()) as { workers: Array<{ engine: string; browser_sessions?: { capacity: number; in_use: number } }> }).workers.filter((w) => w.browser_sessions);
  }

  beforeAll(async () => {
    [database, site] = await Promise.all([createTestDatabase(), startJsSite()]);
    gateway = startProgram(['gateway'], { ...common(), DATABASE_URL: database.url, PORT: '0', TRAWLER_BOOTSTRAP_KEY: secret });
    wsBase = String((await gateway.waitForLog(byMessage('gateway listening'))).url).replace(/^http/, 'ws');
    worker = startProgram(['worker', '--engine', 'chromium'], { ...common(), METRICS_PORT: '0' });
    await until(browserWorkers, (list) => list.length === 1, 120_000);
  }, 180_000);

  afterAll(async () => {
    for (const program of [gateway, worker]) program?.kill('SIGKILL');
    for (const pid of worker?.process.pid ? browsersOf(worker.process.pid) : []) process.kill(pid, 'SIGKILL');
    await site?.close();
    await database?.drop();
  });

  it('relays Playwright to the worker over a direct socket leased through NATS, billed in PostgreSQL', async () => {
    const browser = await chromium.connectOverCDP(`${wsBase}/v1/browser?apikey=${secret}`, { timeout: 60_000 });
    const page = await browser.contexts()[0].newPage();
    await page.goto(`${site.origin}/static`);
    expect(await page.locator('h1').textContent()).toBe('Static page');
    await expect(page.goto(`${site.privateOrigin}/secret`)).rejects.toThrow();
    expect((await browserWorkers())[0].browser_sessions?.capacity).toBeGreaterThan(0);
    await browser.close();
    const stored = await until(async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query<{ credits: string; reason: string }>("SELECT entry->>'credits_micro' AS credits, entry->'features'->'remote_browser'->>'end_reason' AS reason FROM request_log WHERE entry->>'engine' = 'chromium'")).rows;
      } finally {
        await client.end();
      }
    }, (rows) => rows.length === 1);
    expect(stored).toEqual([{ credits: '8000000', reason: 'client' }]);
  });

  it('closes the client with 1011 when the worker dies, billing the started minute', async () => {
    const socket = new WebSocket(`${wsBase}/v1/browser?apikey=${secret}`);
    const opened = new Promise((resolve) => socket.once('open', resolve));
    const requestId = await new Promise<string>((resolve, reject) => {
      socket.once('upgrade', (res) => resolve(String(res.headers['x-request-id'])));
      socket.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    await opened;
    worker.kill('SIGKILL');
    expect(await closed).toBe(1011);
    const entry = await entryOf(requestId);
    expect(entry.credits_micro).toBe(8_000_000);
    expect(entry.features.remote_browser.end_reason).toBe('worker');
  });
});
