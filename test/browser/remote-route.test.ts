import { chromium, type Browser } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MICRO_PER_CREDIT } from '../../lib/billing/prices.js';
import { keyFor, newAccount } from '../support/accounts.js';
import { startEmbedded } from '../support/embedded.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startJsSite, type JsSite } from '../support/js-pages.js';
import { until } from '../support/poll.js';
import { handshake } from '../support/remote-browser.js';

/**
 * GET /v1/browser end to end in the embedded default: the gateway's checks before the upgrade, the
 * relay to the worker's context, the billing of started minutes, driven by Playwright's
 * connectOverCDP and puppeteer-core's connect as callers would.
 */
const service = embeddedForSuite({ engines: ['fetch', 'chromium'], env: { BROWSER_SESSIONS: '6' } });
let site: JsSite;
let browserKey: string;
let wsBase: string;
const clients: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  site = await startJsSite();
  browserKey = await keyFor(service.db, service.projectId, ['browser', 'sessions'], 'browser');
  wsBase = service.url.replace(/^http/, 'ws');
  await until(() => service.gateway.context.directory.browserEngines().has('chromium'), Boolean);
}, 60_000);

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  service.gateway.context.browsers.now = Date.now;
  service.config.BROWSER_ROUTE_ENABLED = true;
});

afterAll(async () => {
  await site?.close();
});

function endpoint(query: Record<string, string> = {}, key: string | null = browserKey): string {
  const params = new URLSearchParams(key === null ? query : { apikey: key, ...query });
  return `${wsBase}/v1/browser?${params}`;
}

async function playwright(query: Record<string, string> = {}): Promise<Browser> {
  const browser = await chromium.connectOverCDP(endpoint(query), { timeout: 30_000 });
  clients.push(browser);
  return browser;
}

/** The request-log entry of a connection, once its settlement wrote it. */
async function entryOf(requestId: string) {
  const found = await until(
    async () => (await fetch(`${service.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${service.secret}` } })).json() as Promise<Record<string, unknown>>,
    (body) => body.engine === 'chromium' && typeof body.credits_micro === 'number',
  );
  const entry = found as { credits_micro: number; engine: string; features?: Record<string, unknown>; status: string };
  return { ...entry, credits_charged: entry.credits_micro / MICRO_PER_CREDIT };
}

/** Opens a raw CDP connection and answers its request id, the close code and the final trawler frame. */
async function rawConnection(query: Record<string, string> = {}) {
  const shake = await handshake(endpoint(query));
  expect(shake.status).toBe(101);
  const socket = shake.socket!;
  const frames: Array<Record<string, unknown>> = [];
  socket.on('message', (data) => frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  const call = (id: number, method: string, params: Record<string, unknown> = {}) => {
    socket.send(JSON.stringify({ id, method, params }));
    return until(() => frames.find((frame) => frame.id === id), Boolean, 30_000) as Promise<Record<string, unknown>>;
  };
  return { requestId: String(shake.headers['x-request-id']), reserved: Number(shake.headers['x-credits-reserved']), socket, frames, closed, call };
}

describe('GET /v1/browser: refusals before the upgrade', () => {
  it('401 without a key, 401 for a bad one, 403 without the browser scope, as problem+json with X-Request-Id', async () => {
    const missing = await handshake(endpoint({}, null));
    expect(missing.status).toBe(401);
    expect(missing.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(JSON.parse(missing.body).code).toBe('ERR::AUTH::MISSING_KEY');
    expect(missing.headers['x-request-id']).toMatch(/^[0-9A-Z]{26}$/);

    const bad = await handshake(endpoint({}, 'svc_live_nope'));
    expect(bad.status).toBe(401);

    const scrapeOnly = await keyFor(service.db, service.projectId, ['scrape'], 'scrape-only');
    const noScope = await handshake(endpoint({}, scrapeOnly));
    expect(noScope.status).toBe(403);
    expect(JSON.parse(noScope.body).code).toBe('ERR::AUTH::INSUFFICIENT_SCOPE');
  });

  it('reads the key from the Authorization header too', async () => {
    const shake = await handshake(endpoint({}, null), { authorization: `Bearer ${browserKey}` });
    expect(shake.status).toBe(101);
    shake.socket!.close();
  });

  it('400 naming an unknown or bad parameter; 501 when turned off', async () => {
    const unknown = await handshake(endpoint({ stealth: 'true' }));
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.body).detail).toMatch(/"stealth"/);
    const obscuraHeadful = await handshake(endpoint({ engine: 'obscura', headless: 'false' }));
    expect(obscuraHeadful.status).toBe(400);
    expect(JSON.parse(obscuraHeadful.body).code).toBe('ERR::REQUEST::CAPABILITY_UNSUPPORTED');

    service.config.BROWSER_ROUTE_ENABLED = false;
    const off = await handshake(endpoint());
    expect(off.status).toBe(501);
    expect(JSON.parse(off.body)).toMatchObject({ code: 'ERR::ENGINE::UNAVAILABLE', retryable: false });
  });

  it('402 when the allowance cannot hold the whole TTL, nothing held after', async () => {
    const account = await newAccount(service.db, 100 * MICRO_PER_CREDIT, { name: 'poor', concurrencyLimit: 5 });
    const poorKey = await keyFor(service.db, account.projectId, ['browser'], 'poor');
    // 3600 s = 60 started minutes at 8 credits: 480 credits, more than 100.
    const refused = await handshake(endpoint({ ttl: '3600' }, poorKey));
    expect(refused.status).toBe(402);
    expect(JSON.parse(refused.body).code).toBe('ERR::LIMIT::QUOTA_EXCEEDED');
    // 600 s = 80 credits fits: the refused hold left nothing behind.
    const fits = await handshake(endpoint({ ttl: '600' }, poorKey));
    expect(fits.status).toBe(101);
    expect(fits.headers['x-credits-reserved']).toBe('80');
    fits.socket!.close();
  });

  it('429 when the organization has no concurrency slot left; the slot comes back when the connection ends', async () => {
    const account = await newAccount(service.db, 10_000 * MICRO_PER_CREDIT, { name: 'one-slot', concurrencyLimit: 1 });
    const key = await keyFor(service.db, account.projectId, ['browser'], 'one-slot');
    const first = await handshake(endpoint({}, key));
    expect(first.status).toBe(101);
    const second = await handshake(endpoint({}, key));
    expect(second.status).toBe(429);
    expect(JSON.parse(second.body).code).toBe('ERR::LIMIT::CONCURRENCY_EXCEEDED');
    first.socket!.close();
    await until(async () => (await handshake(endpoint({}, key))).status, (status) => status === 101 || status !== 429);
  });
});

describe('GET /v1/browser with Playwright connectOverCDP', () => {
  it('opens pages, navigates to a loopback page, evaluates and takes a screenshot', async () => {
    const browser = await playwright();
    const context = browser.contexts()[0];
    const page = await context.newPage();
    const response = await page.goto(`${site.origin}/client-rendered`);
    expect(response?.status()).toBe(200);
    expect(await page.evaluate(() => document.title)).toBe('Test page');
    const png = await page.screenshot();
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });

  it('refuses a private address, for a navigation and for a page script', async () => {
    const browser = await playwright();
    const page = await browser.contexts()[0].newPage();
    await expect(page.goto(`${site.privateOrigin}/secret`)).rejects.toThrow();
    const scripted = await browser.contexts()[0].newPage();
    await scripted.goto(`${site.origin}/static`);
    const reached = await scripted.evaluate((url) => fetch(url).then(() => true, () => false), `${site.privateOrigin}/x`);
    expect(reached).toBe(false);
    expect(site.privateConnections()).toBe(0);
  });

  it("never shows one caller another connection's pages", async () => {
    const first = await playwright();
    const second = await playwright();
    const mine = await first.contexts()[0].newPage();
    await mine.goto(`${site.origin}/static`);
    const theirs = await second.contexts()[0].newPage();
    await theirs.goto(`${site.origin}/form`);
    const seenBySecond = second.contexts().flatMap((context) => context.pages().map((page) => page.url()));
    expect(seenBySecond).not.toContain(`${site.origin}/static`);
    const session = await second.newBrowserCDPSession();
    const { targetInfos } = (await session.send('Target.getTargets')) as { targetInfos: Array<{ url: string }> };
    expect(targetInfos.map((info) => info.url)).not.toContain(`${site.origin}/static`);
  });
});

describe('GET /v1/browser with puppeteer-core connect', () => {
  it('navigates and evaluates, and a session keeps the cookies set during the connection', async () => {
    const created = await fetch(`${service.url}/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${browserKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({}),
    });
    expect(created.status).toBe(201);
    const sessionId = ((await created.json()) as { id: string }).id;
    const browser = await puppeteer.connect({ browserWSEndpoint: endpoint({}, null) + `session_id=${sessionId}`, headers: { authorization: `Bearer ${browserKey}` }, protocolTimeout: 30_000 });
    const page = await browser.newPage();
    await page.goto(`${site.origin}/static`);
    expect(await page.evaluate(() => document.querySelector('h1')?.textContent)).toBe('Static page');
    await page.evaluate(() => {
      document.cookie = 'remote=kept; path=/; max-age=3600';
    });
    await browser.disconnect();
    await until(
      async () => (await fetch(`${service.url}/v1/sessions/${sessionId}`, { headers: { authorization: `Bearer ${browserKey}` } })).json() as Promise<{ cookies?: number; context?: { cookies: number } }>,
      (body) => JSON.stringify(body).includes('"cookies":1'),
    );

    // A second connection on the session starts with the cookie.
    const again = await puppeteer.connect({ browserWSEndpoint: endpoint({ session_id: sessionId }), protocolTimeout: 30_000 });
    clients.push({ close: () => again.disconnect() });
    const next = await again.newPage();
    await next.goto(`${site.origin}/static`);
    expect(await next.evaluate(() => document.cookie)).toContain('remote=kept');
  });
});

describe('GET /v1/browser: CDP refusals, ends and billing', () => {
  it('answers a refused CDP method with an error and keeps the connection', async () => {
    const connection = await rawConnection();
    const refused = await connection.call(1, 'Browser.close');
    expect((refused.error as { message: string }).message).toMatch(/not allowed/);
    const fine = await connection.call(2, 'Target.getTargets');
    expect(fine.result).toBeDefined();
    connection.socket.close(1000);
    expect((await connection.closed).code).toBe(1000);
  });

  it('bills each started minute once, tells the caller in a final frame, and logs duration and charge', async () => {
    let clock = Date.now();
    service.gateway.context.browsers.now = () => clock;
    const connection = await rawConnection({ ttl: '600' });
    expect(connection.reserved).toBe(80);
    // Two minutes and one second later by the billing clock: three started minutes at 8 credits.
    clock += 121_000;
    await connection.call(1, 'Target.getTargets');
    connection.socket.close();
    await connection.closed;
    const entry = await entryOf(connection.requestId);
    expect(entry.credits_charged).toBe(24);
    expect(entry.features).toMatchObject({ remote_browser: { end_reason: 'client', duration_ms: 121_000, close_code: 1000 } });
    // The connection closed first on the caller's side: no final frame reaches it then.
    expect(connection.frames.some((frame) => 'trawler' in frame)).toBe(false);
  });

  it('closes with 4000 when the TTL passes, charging one started minute and sending the charge first', async () => {
    const connection = await rawConnection({ ttl: '2' });
    const closed = await connection.closed;
    expect(closed.code).toBe(4000);
    expect(connection.frames.at(-1)).toEqual({ trawler: { credits_charged: 8, reason: 'ttl' } });
    expect((await entryOf(connection.requestId)).credits_charged).toBe(8);
  });

  it('closes with 4001 after idle_timeout without a client message', async () => {
    const connection = await rawConnection({ idle_timeout: '1' });
    expect((await connection.closed).code).toBe(4001);
    expect((await entryOf(connection.requestId)).features).toMatchObject({ remote_browser: { end_reason: 'idle' } });
  });

  it('shows the connections in use in GET /v1/workers', async () => {
    const connection = await rawConnection();
    const workers = await until(
      async () => ((await (await fetch(`${service.url}/v1/workers`, { headers: { authorization: `Bearer ${service.secret}` } })).json()) as { workers: Array<{ engine: string; browser_sessions?: { in_use: number } }> }).workers,
      (list) => list.some((worker) => worker.engine === 'chromium' && (worker.browser_sessions?.in_use ?? 0) >= 1),
    );
    expect(workers.find((worker) => worker.engine === 'chromium')?.browser_sessions?.in_use).toBeGreaterThanOrEqual(1);
    connection.socket.close();
  });
});

describe('GET /v1/browser when the gateway stops', () => {
  it('closes open connections with 1001 and bills their started minutes', async () => {
    const own = await startEmbedded({ engines: ['fetch', 'chromium'] });
    try {
      const key = await keyFor(own.db, own.projectId, ['browser'], 'stop');
      await until(() => own.gateway.context.directory.browserEngines().has('chromium'), Boolean);
      const shake = await handshake(`${own.url.replace(/^http/, 'ws')}/v1/browser?apikey=${key}`);
      expect(shake.status).toBe(101);
      const frames: string[] = [];
      shake.socket!.on('message', (data) => frames.push(data.toString()));
      const closed = new Promise<number>((resolve) => shake.socket!.once('close', (code) => resolve(code)));
      await own.gateway.stop(1000);
      expect(await closed).toBe(1001);
      expect(frames.at(-1)).toBe(JSON.stringify({ trawler: { credits_charged: 8, reason: 'shutdown' } }));
      const { rows } = await own.db.query<{ credits_micro: string }>("SELECT entry->>'credits_micro' AS credits_micro FROM request_log WHERE id = $1", [String(shake.headers['x-request-id'])]);
      expect(rows.map((row) => Number(row.credits_micro))).toEqual([8 * MICRO_PER_CREDIT]);
    } finally {
      await own.workers?.stop(1000);
      await own.bus.close();
      await own.db.close();
    }
  });
});
