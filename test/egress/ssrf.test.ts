import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAllowed, type LookupFn } from '../../lib/egress/policy.js';
import { EgressGuard, EGRESS_ERROR_HEADER } from '../../worker/egress/guard.js';
import { FetchEngine } from '../../worker/fetch/fetch-engine.js';
import { startHttpProxy, startSocksProxy, type TestProxy } from '../support/proxies.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { engineContext, fetchJob, rejection } from '../fetch/fetch-engine.js';
import { startCountingListener, type CountingListener } from './counting-listener.js';

const policy = { allowLoopback: true };
const answers = new Map<string, string[][]>();
/** Injected DNS: each name answers its queued address lists in turn, the last one forever. */
const lookup: LookupFn = async (name) => {
  const queue = answers.get(name);
  if (!queue) throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return queue.length > 1 ? (queue.shift() ?? []) : queue[0];
};

let forbidden: CountingListener;
let site: TargetSite;
let guard: EgressGuard;
let engine: FetchEngine;
let httpProxy: TestProxy;
let socksProxy: TestProxy;

beforeAll(async () => {
  [forbidden, site, httpProxy, socksProxy] = await Promise.all([startCountingListener('127.0.0.2'), startTargetSite(), startHttpProxy(), startSocksProxy()]);
  guard = await EgressGuard.start({ policy, lookup });
  engine = new FetchEngine({ guard, policy });
});
afterAll(async () => {
  await guard.close();
  await Promise.all([forbidden.close(), site.close(), httpProxy.close(), socksProxy.close()]);
});

function forms(port: number): string[] {
  return [
    `http://127.0.0.2:${port}/`,
    `http://2130706434:${port}/`,
    `http://0177.0.0.2:${port}/`,
    `http://0x7f.0.0.2:${port}/`,
    `http://0x7f000002:${port}/`,
    `http://127.2:${port}/`,
    `http://[::ffff:127.0.0.2]:${port}/`,
    `http://[64:ff9b::7f00:2]:${port}/`,
    `http://[::1]:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://localhost:${port}/`,
    `http://evil.localhost:${port}/`,
    `https://127.0.0.2:${port}/`,
  ];
}

describe.each([
  ['direct', () => null],
  ['via http proxy', () => httpProxy.url],
  ['via socks5 proxy', () => socksProxy.url],
])('SSRF, %s', (_label, proxyOf) => {
  const scrape = (url: string, impersonate = true) =>
    engine.fetch(fetchJob({ url, impersonate, proxy: proxyOf() }), engineContext());

  it('refuses every notation of a forbidden loopback address', async () => {
    for (const url of forms(forbidden.port)) {
      for (const impersonate of [true, false]) {
        const error = await rejection(scrape(url, impersonate));
        expect(error.code, url).toBe('ERR::SECURITY::SSRF_BLOCKED');
      }
    }
    expect(forbidden.connections()).toBe(0);
  });

  it('refuses redirects into forbidden space, at every hop', async () => {
    const targets = [`http://127.0.0.2:${forbidden.port}/`, `http://2130706434:${forbidden.port}/`, `http://localhost:${forbidden.port}/`, `http://rebind-redirect.test:${forbidden.port}/`];
    answers.set('rebind-redirect.test', [['127.0.0.2']]);
    for (const target of targets) {
      for (const impersonate of [true, false]) {
        const error = await rejection(scrape(`${site.origin}/redirect-to?url=${encodeURIComponent(target)}`, impersonate));
        expect(error.code, target).toBe('ERR::SECURITY::SSRF_BLOCKED');
      }
    }
    expect(forbidden.connections()).toBe(0);
  });

  it('refuses DNS rebinding: a name that passed validation and then resolves to forbidden space', async () => {
    for (const impersonate of [true, false]) {
      answers.set('rebind.test', [['127.0.0.1'], ['127.0.0.2']]);
      await expect(resolveAllowed('rebind.test', policy, lookup)).resolves.toEqual(['127.0.0.1']);
      const error = await rejection(scrape(`http://rebind.test:${forbidden.port}/`, impersonate));
      expect(error.code).toBe('ERR::SECURITY::SSRF_BLOCKED');
      answers.set('mixed.test', [['127.0.0.1', '127.0.0.2']]);
      expect((await rejection(scrape(`http://mixed.test:${forbidden.port}/`, impersonate))).code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    }
    expect(forbidden.connections()).toBe(0);
  });

  it('still reaches the allowed target', async () => {
    // Through a caller proxy the proxy resolves names itself, and the test proxies use the OS resolver.
    answers.set('allowed.test', [['127.0.0.1']]);
    const url = proxyOf() === null ? `http://allowed.test:${site.origin.split(':')[2]}/` : site.url;
    expect((await scrape(url)).status).toBe(200);
  });
});

describe('SSRF through the caller proxy never reaches the proxy for forbidden targets', () => {
  it('sends nothing to the proxy for a forbidden literal', async () => {
    const before = httpProxy.targets().length;
    await rejection(engine.fetch(fetchJob({ url: `http://127.0.0.2:${forbidden.port}/`, proxy: httpProxy.url }), engineContext()));
    expect(httpProxy.targets().slice(before)).toEqual([]);
  });
});

describe('the guard refuses a caller proxy in private space', () => {
  it('refuses a proxy literal statically', async () => {
    const error = await rejection(engine.fetch(fetchJob({ url: site.url, proxy: `http://127.0.0.2:${forbidden.port}` }), engineContext()));
    expect(error.code).toBe('ERR::SECURITY::SSRF_BLOCKED');
  });

  it('refuses a proxy name that resolves to forbidden space, without connecting', async () => {
    answers.set('proxy.test', [['127.0.0.2']]);
    for (const scheme of ['http', 'socks5']) {
      const error = await rejection(engine.fetch(fetchJob({ url: site.url, proxy: `${scheme}://proxy.test:${forbidden.port}` }), engineContext()));
      expect(error.code).toBe('ERR::SECURITY::SSRF_BLOCKED');
      expect(error.detail).toMatch(/Proxy host proxy\.test/);
    }
    expect(forbidden.connections()).toBe(0);
  });
});

describe('the guard itself', () => {
  function rawConnect(lease: { username: string; password: string }, authority: string): Promise<{ status: number; code: string | undefined }> {
    return new Promise((resolve, reject) => {
      const request = http.request({
        host: '127.0.0.1',
        port: guard.port,
        method: 'CONNECT',
        path: authority,
        headers: { 'proxy-authorization': `Basic ${Buffer.from(`${lease.username}:${lease.password}`).toString('base64')}` },
      });
      request.once('connect', (response, socket) => {
        socket.destroy();
        resolve({ status: response.statusCode ?? 0, code: response.headers[EGRESS_ERROR_HEADER] as string | undefined });
      });
      request.once('error', reject);
      request.end();
    });
  }

  it('asks for credentials, and records blocked destinations per lease', async () => {
    expect((await rawConnect({ username: 'nobody', password: 'x' }, `127.0.0.1:${site.origin.split(':')[2]}`)).status).toBe(407);
    const lease = guard.lease({ requestId: 'r1', upstreamProxy: null });
    const refused = await rawConnect(lease, `127.0.0.2:${forbidden.port}`);
    expect(refused).toEqual({ status: 403, code: 'ERR::SECURITY::SSRF_BLOCKED' });
    expect(lease.failure()?.code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    expect(lease.blocked()).toEqual([{ host: '127.0.0.2', port: forbidden.port, reason: expect.stringMatching(/loopback/) }]);
    lease.release();
    expect((await rawConnect(lease, `127.0.0.1:${site.origin.split(':')[2]}`)).status).toBe(407);
    expect(forbidden.connections()).toBe(0);
  });

  it('refuses loopback 127.0.0.1 under the default policy', async () => {
    const strict = await EgressGuard.start({ policy: { allowLoopback: false } });
    const strictEngine = new FetchEngine({ guard: strict, policy: { allowLoopback: true } });
    const before = site.hits('/');
    const error = await rejection(strictEngine.fetch(fetchJob({ url: site.url }), engineContext()));
    expect(error.code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    expect(site.hits('/')).toBe(before);
    await strict.close();
  });
});
