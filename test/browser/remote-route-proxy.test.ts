import { chromium, type Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keyFor } from '../support/accounts.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startJsSite, type JsSite } from '../support/js-pages.js';
import { until } from '../support/poll.js';
import { startHttpProxy, startSocksProxy, type TestProxy } from '../support/proxies.js';

/**
 * GET /v1/browser with `proxy=`: every request of the caller's pages leaves through the caller's proxy
 * (loopback HTTP and SOCKS5 proxies with credentials), behind the egress guard as for a scrape.
 */
const service = embeddedForSuite({ engines: ['fetch', 'chromium'] });
let site: JsSite;
let httpProxy: TestProxy;
let socksProxy: TestProxy;
let browserKey: string;
const clients: Browser[] = [];
const auth = { user: 'caller', pass: 's3cret' };

beforeAll(async () => {
  [site, httpProxy, socksProxy] = await Promise.all([startJsSite(), startHttpProxy({ auth }), startSocksProxy({ auth })]);
  browserKey = await keyFor(service.db, service.projectId, ['browser'], 'browser');
  await until(() => service.gateway.context.directory.browserEngines().has('chromium'), Boolean);
}, 60_000);

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
});

afterAll(async () => {
  await Promise.all([site?.close(), httpProxy?.close(), socksProxy?.close()]);
});

async function connect(proxy: string): Promise<Browser> {
  const params = new URLSearchParams({ apikey: browserKey, proxy });
  const browser = await chromium.connectOverCDP(`${service.url.replace(/^http/, 'ws')}/v1/browser?${params}`, { timeout: 30_000 });
  clients.push(browser);
  return browser;
}

describe.each([
  ['http', () => httpProxy],
  ['socks5', () => socksProxy],
])('GET /v1/browser with proxy= (%s)', (_scheme, proxyOf) => {
  it("sends the page and the page's own requests through the caller's proxy", async () => {
    const proxy = proxyOf();
    const siteAuthority = `127.0.0.1:${new URL(site.origin).port}`;
    const asked = proxy.targets().length;
    const pageHits = site.hits('/fetch-at-load');
    const lateHits = site.hits('/api/late');
    const page = await (await connect(proxy.url)).contexts()[0]!.newPage();
    expect((await page.goto(`${site.origin}/fetch-at-load`))?.status()).toBe(200);
    // The page's script fetches /api/late after load; its answer in the page shows that request went out too.
    await page.waitForFunction(() => document.getElementById('app')?.textContent === 'Arrived after load', undefined, { timeout: 30_000 });
    expect(site.hits('/fetch-at-load')).toBe(pageHits + 1);
    expect(site.hits('/api/late')).toBe(lateHits + 1);
    // An HTTP proxy is asked by CONNECT (host:port) or by absolute URL; either names the site, and nothing else.
    const targets = proxy.targets().slice(asked);
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect(target.replace(/^http:\/\//, '').split('/')[0]).toBe(siteAuthority);
  });

  it('reaches nothing when the proxy refuses the credentials: there is no direct way around it', async () => {
    const proxy = proxyOf();
    const pageHits = site.hits('/fetch-at-load');
    const page = await (await connect(proxy.url.replace(':s3cret@', ':wrong@'))).contexts()[0]!.newPage();
    const outcome = await page.goto(`${site.origin}/fetch-at-load`).then(
      (response) => `status ${response?.status()}`,
      (error: Error) => error.message,
    );
    expect(outcome).not.toBe('status 200');
    expect(site.hits('/fetch-at-load')).toBe(pageHits);
  });

  it('still refuses a private address, without asking the proxy for it', async () => {
    const proxy = proxyOf();
    const page = await (await connect(proxy.url)).contexts()[0]!.newPage();
    await expect(page.goto(`${site.privateOrigin}/secret`)).rejects.toThrow();
    expect(site.privateConnections()).toBe(0);
    expect(proxy.targets().filter((target) => target.includes('127.0.0.2'))).toEqual([]);
  });
});
