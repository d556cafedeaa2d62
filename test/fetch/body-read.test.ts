import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../worker/egress/guard.js';
import { FetchEngine } from '../../worker/fetch/fetch-engine.js';
import { engineContext, fetchJob, rejection } from './fetch-engine.js';

/** Chunked bodies that end early, stall or grow past a small ceiling: how the engine reads a body it cannot finish. */
const policy = { allowLoopback: true };
const CEILING = 4096;
let server: http.Server;
let origin: string;
let guard: EgressGuard;
let engine: FetchEngine;
const hits = new Map<string, number>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.write('<!DOCTYPE html><html><body><p>first chunk</p>');
    if (req.url === '/reset-mid-body') setTimeout(() => req.socket.resetAndDestroy(), 20);
    if (req.url === '/chunks-past-ceiling') {
      for (let i = 0; i < 8; i++) res.write('x'.repeat(1024));
      res.end('</body></html>');
    }
    if (req.url === '/chunks-under-ceiling') {
      for (let i = 0; i < 3; i++) res.write(`<p>${'y'.repeat(1000)}</p>`);
      res.end('</body></html>');
    }
    // '/stall-mid-body' sends nothing more.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  guard = await EgressGuard.start({ policy });
  engine = new FetchEngine({ guard, policy, maxBodyBytes: CEILING });
});
afterAll(async () => {
  await engine.stop();
  await guard.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe.each([true, false])('reading a chunked body, impersonate=%s', (impersonate) => {
  const get = (path: string, budgetMs = 10_000) => engine.fetch(fetchJob({ url: `${origin}${path}`, impersonate }, budgetMs), engineContext());

  it('reads every chunk of a body under the ceiling', async () => {
    const page = await get('/chunks-under-ceiling');
    expect(page.text).toContain(`<p>${'y'.repeat(1000)}</p>`.repeat(3));
    expect(page.text?.endsWith('</body></html>')).toBe(true);
  });

  it('refuses a body that grows past the ceiling while it is read', async () => {
    const error = await rejection(get('/chunks-past-ceiling'));
    expect(error.code).toBe('ERR::UPSTREAM::ERROR');
    expect(error.detail).toMatch(/size ceiling/);
    expect(error.targetStatus).toBe(200);
  });

  it('retries a body cut by a reset, then fails with CONNECTION_RESET and the status seen', async () => {
    const before = hits.get('/reset-mid-body') ?? 0;
    const error = await rejection(get('/reset-mid-body'));
    expect(error.code).toBe('ERR::UPSTREAM::CONNECTION_RESET');
    expect(error.targetStatus).toBe(200);
    expect((hits.get('/reset-mid-body') ?? 0) - before).toBe(3);
  });

  it('times out a body that stops arriving', async () => {
    const error = await rejection(get('/stall-mid-body', 1_000));
    expect(error.code).toBe('ERR::UPSTREAM::TIMEOUT');
    expect(error.diagnostics?.failed_at).toBe('response');
  });
});
