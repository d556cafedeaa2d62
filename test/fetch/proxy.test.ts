import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../worker/egress/guard.js';
import { FetchEngine } from '../../worker/fetch/fetch-engine.js';
import { startHttpProxy, startSocksProxy, type TestProxy } from '../support/proxies.js';
import { startTargetSite, SIMPLE_HTML, type TargetSite } from '../support/target-site.js';
import { engineContext, fetchJob, rejection } from './fetch-engine.js';

const policy = { allowLoopback: true };
const auth = { user: 'alice', pass: 's3cret' };
let site: TargetSite;
let guard: EgressGuard;
let engine: FetchEngine;
let httpProxy: TestProxy;
let socksProxy: TestProxy;

beforeAll(async () => {
  [site, httpProxy, socksProxy] = await Promise.all([startTargetSite(), startHttpProxy({ auth }), startSocksProxy({ auth })]);
  guard = await EgressGuard.start({ policy });
  engine = new FetchEngine({ guard, policy });
});
afterAll(async () => {
  await guard.close();
  await Promise.all([site.close(), httpProxy.close(), socksProxy.close()]);
});

const wrongPassword = (proxy: TestProxy): string => proxy.url.replace(':s3cret@', ':wrong@');

describe.each([
  ['http', () => httpProxy],
  ['socks5', () => socksProxy],
])('caller proxy (%s)', (scheme, proxyOf) => {
  describe.each([true, false])('impersonate=%s', (impersonate) => {
    const scrape = (proxy: string, extra: Record<string, unknown> = {}) =>
      engine.fetch(fetchJob({ url: site.url, impersonate, proxy, ...extra }), engineContext());

    it('fetches through the proxy and reports it redacted', async () => {
      const proxy = proxyOf();
      const before = proxy.connections();
      const page = await scrape(proxy.url);
      expect(page.text).toBe(SIMPLE_HTML);
      expect(proxy.connections()).toBeGreaterThan(before);
      expect(proxy.targets().at(-1)).toBe(`127.0.0.1:${new URL(site.url).port}`);
      expect(page.proxy).toEqual({ source: 'custom', endpoint: proxy.endpoint, country: null });
      expect(JSON.stringify(page)).not.toContain('s3cret');
      expect(page.proxyBytes).toBeGreaterThan(0);
    });

    it('fails wrong credentials with PROXY::AUTH_FAILED, never leaking them', async () => {
      const error = await rejection(scrape(wrongPassword(proxyOf())));
      expect(error.code).toBe('ERR::PROXY::AUTH_FAILED');
      expect(error.diagnostics?.proxy).toEqual({ source: 'custom', endpoint: proxyOf().endpoint, country: null });
      expect(error.diagnostics?.attempts).toHaveLength(1);
      expect(JSON.stringify(error.diagnostics)).not.toContain('wrong');
    });

    it('fails an unreachable proxy with PROXY::UNREACHABLE', async () => {
      const gone = await startTargetSite();
      const port = new URL(gone.url).port;
      await gone.close();
      const error = await rejection(scrape(`${scheme}://127.0.0.1:${port}`));
      expect(error.code).toBe('ERR::PROXY::UNREACHABLE');
      expect(error.status).toBe(502);
    });

    it('proxy_verify fails before the target is touched', async () => {
      const before = site.hits('/');
      const error = await rejection(scrape(wrongPassword(proxyOf()), { proxy_verify: true }));
      expect(error.code).toBe('ERR::PROXY::AUTH_FAILED');
      expect(error.diagnostics?.failed_at).toBe('proxy_verify');
      expect(error.diagnostics?.attempts).toEqual([]);
      expect(site.hits('/')).toBe(before);
    });

    it('proxy_verify passes a working proxy, then fetches', async () => {
      const page = await scrape(proxyOf().url, { proxy_verify: true });
      expect(page.status).toBe(200);
      expect(page.timeline[0]).toMatchObject({ stage: 'proxy_verify', ok: true });
    });
  });
});
