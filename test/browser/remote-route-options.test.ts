import { chromium, type Browser } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MICRO_PER_CREDIT } from '../../lib/billing/prices.js';
import { newId } from '../../lib/ids.js';
import { keyFor } from '../support/accounts.js';
import { startJsSite, type JsSite } from '../support/js-pages.js';
import { startExitTarget, startStaticExit, type ExitServer, type ExitTarget } from '../support/pool-exits.js';
import { startPoolService, type PoolService } from '../support/pool-service.js';
import { until } from '../support/poll.js';
import { handshake } from '../support/remote-browser.js';

/**
 * GET /v1/browser's `headless=false`, `premium_proxy` and `proxy_country` end to end: a real headful
 * Chromium on a virtual display, and pages fetched through the managed pool's exits (loopback proxies
 * leaving from their own 127.0.0.x address, so the target tells which exit a request came through),
 * billed at the exit class's price.
 */
let service: PoolService;
let target: ExitTarget;
let site: JsSite;
let exits: ExitServer[];
let browserKey: string;
let wsBase: string;
const clients: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  [target, site, ...exits] = await Promise.all([
    startExitTarget(),
    startJsSite(),
    startStaticExit({ address: '127.0.0.80' }),
    startStaticExit({ address: '127.0.0.81' }),
    startStaticExit({ address: '127.0.0.82' }),
  ]);
  service = await startPoolService(
    [
      { id: 'de-resi', url: exits[0].url, tier: 'residential', country: 'DE' },
      { id: 'jp-dc', url: exits[1].url, tier: 'datacenter', country: 'JP' },
      { id: 'us-resi', url: exits[2].url, tier: 'residential', country: 'US' },
    ],
    { engines: ['fetch', 'chromium'] },
  );
  browserKey = await keyFor(service.db, service.projectId, ['browser'], 'browser');
  wsBase = service.url.replace(/^http/, 'ws');
  await until(() => service.gateway.context.directory.browserEngines().has('chromium'), Boolean);
}, 60_000);

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
});

afterAll(async () => {
  await service?.stop();
  await Promise.all([target?.close(), site?.close(), ...(exits ?? []).map((exit) => exit.close())]);
});

function endpoint(query: Record<string, string>): string {
  return `${wsBase}/v1/browser?${new URLSearchParams({ apikey: browserKey, ...query })}`;
}

/** Connects with Playwright (its 101's headers are not shown: the settled entry is read from the store). */
async function connect(query: Record<string, string>): Promise<{ browser: Browser }> {
  const browser = await chromium.connectOverCDP(endpoint(query), { timeout: 60_000 });
  clients.push(browser);
  return { browser };
}

/** The request-log entry of a connection once settled. */
async function entryOf(requestId: string): Promise<Record<string, unknown> & { credits_micro: number }> {
  return (await until(
    async () => (await fetch(`${service.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${service.secret}` } })).json() as Promise<Record<string, unknown>>,
    (body) => body.engine === 'chromium' && typeof body.credits_micro === 'number',
  )) as Record<string, unknown> & { credits_micro: number };
}

/**
 * The settled entry of the one connection opened after `after` (the newest request id then): Playwright
 * does not show the 101's X-Request-Id, and ids are ULIDs, so a connection opened later has a greater one.
 */
async function latestBrowserEntry(after: string): Promise<Record<string, unknown> & { credits_micro: number }> {
  const rows = await until(
    async () => (await service.db.query<{ id: string }>("SELECT id FROM request_log WHERE id > $1 AND entry->'features'->'remote_browser' IS NOT NULL", [after])).rows,
    (found) => found.length > 0,
  );
  expect(rows).toHaveLength(1);
  return entryOf(rows[0].id);
}

/** An id below every request id the (in-process) gateway gives from now on: ids are monotonic ULIDs. */
async function newestRequestId(): Promise<string> {
  return newId();
}

describe('GET /v1/browser with premium_proxy and proxy_country', () => {
  it("fetches through proxy_country's residential exit, reserving and charging the residential price", async () => {
    const shake = await handshake(endpoint({ premium_proxy: 'true', proxy_country: 'DE', ttl: '120' }));
    expect(shake.status).toBe(101);
    // 2 started minutes at chromium's residential 32 credits.
    expect(shake.headers['x-credits-reserved']).toBe('64');
    shake.socket!.close();
    const requestId = String(shake.headers['x-request-id']);
    expect((await entryOf(requestId)).credits_micro).toBe(32 * MICRO_PER_CREDIT);

    const before = await newestRequestId();
    const { browser } = await connect({ premium_proxy: 'true', proxy_country: 'US' });
    const page = await browser.contexts()[0].newPage();
    const seen = target.seen().length;
    expect((await page.goto(target.url))?.status()).toBe(200);
    expect(await page.locator('#from').textContent()).toBe('127.0.0.82');
    // The page and its favicon: every request reached the target from the US exit.
    expect(new Set(target.seen().slice(seen))).toEqual(new Set(['127.0.0.82']));
    // A page script's own request leaves through the same exit.
    const fetched = await page.evaluate((url) => fetch(url).then((response) => response.text()), target.url);
    expect(fetched).toContain('127.0.0.82');
    expect(exits[0].requests() + exits[1].requests()).toBe(0);
    await browser.close();
    const entry = await latestBrowserEntry(before);
    expect(entry.credits_micro).toBe(32 * MICRO_PER_CREDIT);
    expect(entry.proxy).toMatchObject({ source: 'pool', endpoint_id: 'us-resi', country: 'US', requested_tier: 'residential', requested_country: 'US' });
  });

  it('takes a residential exit without proxy_country, never the datacenter one', async () => {
    const { browser } = await connect({ premium_proxy: 'true' });
    const page = await browser.contexts()[0].newPage();
    await page.goto(target.url);
    expect(['127.0.0.80', '127.0.0.82']).toContain(await page.locator('#from').textContent());
    expect(exits[1].requests()).toBe(0);
  });

  it('503 PROXY::EXHAUSTED before the upgrade when the country has no residential exit, nothing held', async () => {
    const refused = await handshake(endpoint({ premium_proxy: 'true', proxy_country: 'JP' }));
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body).code).toBe('ERR::PROXY::EXHAUSTED');
    const { rows } = await service.db.query("SELECT id FROM credit_holds WHERE released_at IS NULL AND request_id = $1", [String(refused.headers['x-request-id'])]).catch(() => ({ rows: [] }));
    expect(rows).toEqual([]);
  });

  it('still refuses a private address through a pool exit, without asking the exit', async () => {
    const { browser } = await connect({ premium_proxy: 'true', proxy_country: 'DE' });
    const page = await browser.contexts()[0].newPage();
    const asked = exits[0].requests();
    await expect(page.goto(`${site.privateOrigin}/secret`)).rejects.toThrow();
    expect(site.privateConnections()).toBe(0);
    expect(exits[0].requests()).toBe(asked);
  });
});

describe('GET /v1/browser with headless=false', () => {
  it('runs a headful Chromium on a virtual display (Playwright): no Headless in the user agent, pages and screenshots work', async () => {
    const before = await newestRequestId();
    const { browser } = await connect({ headless: 'false' });
    const page = await browser.contexts()[0].newPage();
    expect((await page.goto(`${site.origin}/client-rendered`))?.status()).toBe(200);
    const seen = (await page.evaluate(() => [navigator.userAgent.includes('Headless'), document.title])) as [boolean, string];
    expect(seen).toEqual([false, 'Test page']);
    const version = await browser.version();
    expect(version).not.toMatch(/headless/i);
    const png = await page.screenshot();
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    await browser.close();
    const entry = await latestBrowserEntry(before);
    expect(entry.features).toMatchObject({ remote_browser: { headless: false } });
    expect(entry.credits_micro).toBe(8 * MICRO_PER_CREDIT);
  });

  it('keeps a headful connection inside the egress policy (puppeteer-core)', async () => {
    const browser = await puppeteer.connect({ browserWSEndpoint: endpoint({ headless: 'false' }), protocolTimeout: 60_000 });
    clients.push({ close: () => browser.disconnect() });
    const page = await browser.newPage();
    await page.goto(`${site.origin}/static`);
    expect(await page.evaluate(() => navigator.userAgent.includes('Headless'))).toBe(false);
    // The egress guard answers a plain-http request to a private address 403 itself: puppeteer shows that answer.
    const blocked = await page.goto(`${site.privateOrigin}/secret`).then((response) => `status ${response?.status()}`, () => 'refused');
    expect(['status 403', 'refused']).toContain(blocked);
    const reached = await page.evaluate((url) => fetch(url).then(() => true, () => false), `${site.privateOrigin}/x`);
    expect(reached).toBe(false);
    expect(site.privateConnections()).toBe(0);
  });

  it('goes through the pool exit when headful with premium_proxy', async () => {
    const { browser } = await connect({ headless: 'false', premium_proxy: 'true', proxy_country: 'DE' });
    const page = await browser.contexts()[0].newPage();
    await page.goto(target.url);
    expect(await page.locator('#from').textContent()).toBe('127.0.0.80');
    expect(await page.evaluate(() => navigator.userAgent.includes('Headless'))).toBe(false);
  });
});
