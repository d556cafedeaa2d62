import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { serveMetrics } from '../../lib/metrics-server.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function registryWithOneCounter(): Registry {
  const registry = new Registry();
  new Counter({ name: 'unit_things_total', help: 'Things.', registers: [registry] }).inc();
  return registry;
}

async function started(server: Promise<Server>): Promise<string> {
  const running = await server;
  servers.push(running);
  return `http://127.0.0.1:${(running.address() as AddressInfo).port}`;
}

describe('serveMetrics', () => {
  it('serves /metrics and /healthz, and /readyz only when a readiness is given', async () => {
    const base = await started(serveMetrics(registryWithOneCounter(), '127.0.0.1', 0));
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('unit_things_total 1');
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    expect((await fetch(`${base}/readyz`)).status).toBe(404);
  });

  it('answers /readyz 503 until ready, then 200 (the operator)', async () => {
    let ready = false;
    const base = await started(serveMetrics(new Registry(), '127.0.0.1', 0, { ready: () => ready }));
    const before = await fetch(`${base}/readyz`);
    expect(before.status).toBe(503);
    expect(await before.json()).toEqual({ status: 'starting' });
    ready = true;
    const after = await fetch(`${base}/readyz`);
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ status: 'ready' });
  });

  it('moves off a taken port when told where to report it, and fails on it otherwise', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    servers.push(blocker);
    const taken = (blocker.address() as AddressInfo).port;
    await expect(serveMetrics(new Registry(), '127.0.0.1', taken)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    const moves: number[] = [];
    const base = await started(serveMetrics(new Registry(), '127.0.0.1', taken, { onMoved: (_wanted, actual) => moves.push(actual) }));
    expect(moves).toHaveLength(1);
    expect(base).toBe(`http://127.0.0.1:${moves[0]}`);
  });
});
