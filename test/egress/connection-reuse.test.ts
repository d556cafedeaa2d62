import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupFn } from '../../lib/egress/policy.js';
import { EgressGuard } from '../../worker/egress/guard.js';
import { FetchEngine } from '../../worker/fetch/fetch-engine.js';
import { engineContext, fetchJob, rejection } from '../fetch/fetch-engine.js';
import { startCountingListener, type CountingListener } from './counting-listener.js';

/** A page server that counts the TCP connections made to it. */
async function startCountingSite(): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  let count = 0;
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><p>kept</p></body></html>'));
  server.on('connection', () => (count += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const policy = { allowLoopback: true };
const answers = new Map<string, string[]>();
const lookup: LookupFn = async (name) => {
  const found = answers.get(name);
  if (!found) throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return found;
};

let site: Awaited<ReturnType<typeof startCountingSite>>;
let forbidden: CountingListener;
let guard: EgressGuard;
let engine: FetchEngine;

beforeAll(async () => {
  [site, forbidden] = await Promise.all([startCountingSite(), startCountingListener('127.0.0.2')]);
  guard = await EgressGuard.start({ policy, lookup });
  engine = new FetchEngine({ guard, policy });
});
afterAll(async () => {
  await engine.stop();
  await guard.close();
  await Promise.all([site.close(), forbidden.close()]);
});

describe.each([true, false])('connection reuse through the guard (impersonate=%s)', (impersonate) => {
  it('keeps the connection to a target across requests, and counts each request its own bytes', async () => {
    const before = site.connections();
    const pages = [];
    for (let i = 0; i < 4; i += 1) pages.push(await engine.fetch(fetchJob({ url: `http://127.0.0.1:${site.port}/p${i}`, impersonate }), engineContext()));
    expect(pages.map((page) => page.status)).toEqual([200, 200, 200, 200]);
    expect(site.connections() - before).toBeLessThan(4);
    for (const page of pages) {
      expect(page.bytesIn).toBeGreaterThan(0);
      // Each request reports its own bytes, not the kept connection's running total.
      expect(page.bytesIn).toBeLessThan(pages[0].bytesIn * 1.5 + 200);
    }
  });

  it('still checks every new connection: a name that now resolves to forbidden space is refused', async () => {
    answers.set('moving.test', ['127.0.0.1']);
    const first = await engine.fetch(fetchJob({ url: `http://moving.test:${forbidden.port}/`, impersonate }), engineContext()).catch((error: unknown) => error);
    // 127.0.0.1 has nothing on the forbidden listener's port: the connection fails, nothing is kept.
    expect(first).toBeInstanceOf(Error);
    answers.set('moving.test', ['127.0.0.2']);
    const error = await rejection(engine.fetch(fetchJob({ url: `http://moving.test:${forbidden.port}/`, impersonate }), engineContext()));
    expect(error.code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    expect(forbidden.connections()).toBe(0);
  });
});

describe('reusable leases', () => {
  it('are held by one request at a time and refused by the guard while released', async () => {
    const a = guard.lease({ requestId: 'a', upstreamProxy: null, reusable: true });
    const b = guard.lease({ requestId: 'b', upstreamProxy: null, reusable: true });
    expect(a.username).not.toBe(b.username);
    a.release();
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request({
        host: '127.0.0.1',
        port: guard.port,
        path: `http://127.0.0.1:${site.port}/`,
        headers: { 'proxy-authorization': `Basic ${Buffer.from(`${a.username}:${a.password}`).toString('base64')}` },
      });
      request.once('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.once('error', reject);
      request.end();
    });
    expect(status).toBe(407);
    const again = guard.lease({ requestId: 'c', upstreamProxy: null, reusable: true });
    expect(again.username).toBe(a.username);
    expect(again.failure()).toBeNull();
    expect(again.timeline()).toEqual([]);
    again.release();
    b.release();
  });

  it('open connections in this process only while a request holds them, checked like the listeners\' dials', async () => {
    const lease = guard.lease({ requestId: 'open', upstreamProxy: null, reusable: true });
    const socket = await lease.open(new URL(`http://127.0.0.1:${site.port}/`));
    socket.destroy();
    await expect(lease.open(new URL(`http://127.0.0.2:${forbidden.port}/`))).rejects.toMatchObject({ code: 'ERR::SECURITY::SSRF_BLOCKED' });
    expect(lease.failure()?.code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    lease.release();
    await expect(lease.open(new URL(`http://127.0.0.1:${site.port}/`))).rejects.toThrow(/released/);
    expect(forbidden.connections()).toBe(0);
  });

  it('open many connections at once without a listener warning (a busy worker is not a leak)', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const leases = Array.from({ length: 16 }, (_, i) => guard.lease({ requestId: `many-${i}`, upstreamProxy: null, reusable: true }));
      const sockets = await Promise.all(leases.map((lease) => lease.open(new URL(`http://127.0.0.1:${site.port}/`))));
      for (const socket of sockets) socket.destroy();
      for (const lease of leases) lease.release();
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('are never used with a caller proxy', () => {
    const lease = guard.lease({ requestId: 'p', upstreamProxy: 'http://93.184.216.34:8080', reusable: true });
    expect(lease.reusable).toBe(false);
    lease.release();
  });
});

describe('a slow dial of an earlier use', () => {
  it('records nothing on the request that holds the lease next', async () => {
    let answer: (addresses: string[]) => void = () => undefined;
    let asked: () => void = () => undefined;
    const lookupAsked = new Promise<void>((resolve) => (asked = resolve));
    const slowGuard = await EgressGuard.start({
      policy,
      lookup: () => {
        asked();
        return new Promise<string[]>((resolve) => (answer = resolve));
      },
    });
    try {
      const first = slowGuard.lease({ requestId: 'first', upstreamProxy: null, reusable: true });
      const request = http.request({
        host: '127.0.0.1',
        port: slowGuard.port,
        path: `http://slow.test:${forbidden.port}/`,
        headers: { 'proxy-authorization': `Basic ${Buffer.from(`${first.username}:${first.password}`).toString('base64')}` },
      });
      request.on('error', () => undefined);
      request.end();
      await lookupAsked;
      // The first request gives up while its connection is still being dialled.
      request.destroy();
      first.release();
      const next = slowGuard.lease({ requestId: 'next', upstreamProxy: null, reusable: true });
      expect(next.username).toBe(first.username);
      answer(['127.0.0.2']);
      // The refused dial settles in microtasks once the lookup answers; one macrotask turn outlasts them.
      await new Promise((resolve) => setImmediate(resolve));
      expect(next.failure()).toBeNull();
      expect(next.blocked()).toEqual([]);
      expect(next.timeline()).toEqual([]);
      expect(forbidden.connections()).toBe(0);
      next.release();
    } finally {
      await slowGuard.close();
    }
  });
});
