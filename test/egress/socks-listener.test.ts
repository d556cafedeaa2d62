import { SocksClient } from 'socks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupFn } from '../../lib/egress/policy.js';
import { EgressGuard, type EgressLease } from '../../worker/egress/guard.js';
import { FetchEngine } from '../../worker/fetch/fetch-engine.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { engineContext, fetchJob, rejection } from '../fetch/fetch-engine.js';
import { startCountingListener, type CountingListener } from './counting-listener.js';

const answers = new Map<string, string[]>();
const lookup: LookupFn = async (name) => {
  const found = answers.get(name);
  if (!found) throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return found;
};

let forbidden: CountingListener;
let site: TargetSite;
/** Loopback not allowed: the production policy. */
let strict: EgressGuard;
/** Loopback allowed (127.0.0.1 only), for fetching the local target site. */
let testing: EgressGuard;
let engine: FetchEngine;

beforeAll(async () => {
  [forbidden, site] = await Promise.all([startCountingListener('127.0.0.2'), startTargetSite()]);
  strict = await EgressGuard.start({ policy: { allowLoopback: false }, lookup });
  testing = await EgressGuard.start({ policy: { allowLoopback: true }, lookup });
  engine = new FetchEngine({ guard: testing, policy: { allowLoopback: true } });
});
afterAll(async () => {
  await engine.stop();
  await Promise.all([strict.close(), testing.close()]);
  await Promise.all([forbidden.close(), site.close()]);
});

function sitePort(): number {
  return Number(new URL(site.origin).port);
}

/** A SOCKS5 CONNECT through the guard's listener with the lease's credentials; the reply's error or null. */
async function socksConnect(lease: EgressLease, host: string, port: number, credentials = { userId: lease.username, password: lease.password }): Promise<string | null> {
  const listener = new URL(lease.socksUrl ?? '');
  try {
    const { socket } = await SocksClient.createConnection({
      proxy: { host: listener.hostname, port: Number(listener.port), type: 5, ...credentials },
      command: 'connect',
      destination: { host, port },
      timeout: 10_000,
    });
    socket.destroy();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

describe('the guard\'s SOCKS5 listener', () => {
  it('is offered for direct leases only; a caller proxy keeps the HTTP listener', () => {
    const direct = strict.lease({ requestId: 'd', upstreamProxy: null });
    const proxied = strict.lease({ requestId: 'p', upstreamProxy: 'http://93.184.216.34:8080' });
    expect(direct.socksUrl).toMatch(/^socks5h:\/\/lease-[0-9a-f]+:[\w-]+@127\.0\.0\.1:\d+$/);
    expect(proxied.socksUrl).toBeNull();
    direct.release();
    proxied.release();
  });

  it.each([
    ['loopback when loopback is not allowed', '127.0.0.1', 'loopback'],
    ['another loopback address', '127.0.0.2', 'loopback'],
    ['a private range', '10.1.2.3', 'private'],
    ['another private range', '192.168.0.10', 'private'],
    ['link-local (cloud metadata)', '169.254.169.254', 'link-local'],
    ['an IPv6 loopback', '::1', 'loopback'],
    ['a name resolving into forbidden space', 'inside.test', 'loopback'],
  ])('refuses %s with SSRF_BLOCKED recorded on the lease, and dials nothing', async (_label, host, reason) => {
    answers.set('inside.test', ['127.0.0.2']);
    const lease = strict.lease({ requestId: 'r', upstreamProxy: null, reusable: true });
    const refused = await socksConnect(lease, host, forbidden.port);
    expect(refused).not.toBeNull();
    expect(lease.failure()?.code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    expect(lease.blocked()).toEqual([expect.objectContaining({ port: forbidden.port, reason: expect.stringContaining(reason) })]);
    expect(forbidden.connections()).toBe(0);
    lease.release();
  });

  it('refuses a released lease\'s credentials and wrong ones', async () => {
    const lease = testing.lease({ requestId: 'x', upstreamProxy: null, reusable: true });
    expect(await socksConnect(lease, '127.0.0.1', sitePort(), { userId: lease.username, password: 'wrong' })).not.toBeNull();
    lease.release();
    expect(await socksConnect(lease, '127.0.0.1', sitePort())).not.toBeNull();
  });

  it('connects an allowed destination and counts the lease\'s bytes', async () => {
    const lease = testing.lease({ requestId: 'ok', upstreamProxy: null, reusable: true });
    expect(await socksConnect(lease, '127.0.0.1', sitePort())).toBeNull();
    expect(lease.failure()).toBeNull();
    expect(lease.timeline().map((step) => step.stage)).toEqual(['dns', 'connect']);
    lease.release();
  });
});

describe('the fetch engine over the SOCKS5 listener (impersonate=true)', () => {
  it('reports a refused redirect hop with the code the API gives', async () => {
    answers.set('moved-inside.test', ['127.0.0.2']);
    for (const target of [`http://127.0.0.2:${forbidden.port}/`, `http://moved-inside.test:${forbidden.port}/`]) {
      const url = `${site.origin}/redirect-to?url=${encodeURIComponent(target)}`;
      const error = await rejection(engine.fetch(fetchJob({ url, impersonate: true }), engineContext()));
      expect(error.code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    }
    expect(forbidden.connections()).toBe(0);
  });

  it('reports a name that does not resolve as DNS_FAILED', async () => {
    const error = await rejection(engine.fetch(fetchJob({ url: `http://nowhere.test:${sitePort()}/`, impersonate: true }), engineContext()));
    expect(error.code).toBe('ERR::UPSTREAM::DNS_FAILED');
  });

  it('checks the new connection a kept client opens after the name moved into forbidden space', async () => {
    answers.set('drifting.test', ['127.0.0.1']);
    const url = `http://drifting.test:${sitePort()}/`;
    const page = await engine.fetch(fetchJob({ url, impersonate: true }), engineContext());
    expect(page.status).toBe(200);
    expect(page.bytesIn).toBeGreaterThan(0);
    // Same name, another port: the kept client needs a new connection, which the guard checks.
    answers.set('drifting.test', ['127.0.0.2']);
    const error = await rejection(engine.fetch(fetchJob({ url: `http://drifting.test:${forbidden.port}/`, impersonate: true }), engineContext()));
    expect(error.code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    expect(forbidden.connections()).toBe(0);
  });
});
