import type { Router } from 'express';
import { pingStore } from '../../lib/store/db.js';
import type { GatewayContext } from '../context.js';
import { RouteTable } from './declare.js';

const CHECK_TIMEOUT_MS = 2000;

/**
 * /healthz: the process is alive and serving HTTP (no dependency checked, so a store outage never
 * gets the gateway restarted). /readyz: the store and the bus answer; 503 when either does not.
 */
export function healthRoutes(context: GatewayContext, state: { draining: () => boolean }): Router {
  const routes = new RouteTable();
  routes.declare('healthz', (_req, res) => {
    res.json({ status: 'ok', version: context.version, uptime_seconds: Math.round(process.uptime()) });
  });
  routes.declare('readyz', async (_req, res) => {
    const [store, bus] = await Promise.all([
      check(() => pingStore(context.db)),
      check(() => context.bus.ping(CHECK_TIMEOUT_MS)),
    ]);
    const draining = state.draining();
    const ready = store.ok && bus.ok && !draining;
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'unavailable',
      draining,
      checks: {
        store: { ...store, kind: context.db.kind },
        bus: { ...bus, transport: context.bus.transport },
      },
      engines: context.directory.summary(),
    });
  });
  return routes.router();
}

async function check(probe: () => Promise<unknown>): Promise<{ ok: boolean; latency_ms: number; error?: string }> {
  const started = Date.now();
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref()),
    ]);
    return { ok: true, latency_ms: Date.now() - started };
  } catch (error) {
    return { ok: false, latency_ms: Date.now() - started, error: error instanceof Error ? error.message : 'failed' };
  }
}
