import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { listenMovable, type PortMoved } from './movable-port.js';

/** Default METRICS_PORT per program, so a gateway and workers on one host do not collide. */
export const DEFAULT_METRICS_PORT = { gateway: 9464, worker: 9465 } as const;

export interface MetricsServerOptions {
  /** Where a taken port moved the server to; without it the port is fixed and a taken one is an error. */
  onMoved?: PortMoved;
  /** Adds /readyz: 200 while it returns true, 503 before (the operator: every watch has listed). */
  ready?: () => boolean;
}

/**
 * Every process's /metrics for Prometheus, with a /healthz for the kubelet, on a port of its own
 * (METRICS_PORT), so the public API port serves only /v1 and the health probes. With `onMoved` a
 * taken port never stops the process: the next ports are tried, then any free one.
 */
export async function serveMetrics(registry: Registry, host: string, port: number, options: MetricsServerOptions = {}): Promise<Server> {
  const { ready, onMoved } = options;
  const server = createServer((req, res) => {
    const json = (status: number, body: string) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(body);
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
        () => json(500, '{"status":"error"}'),
      );
    } else if (path === '/healthz') {
      json(200, '{"status":"ok"}');
    } else if (path === '/readyz' && ready) {
      if (ready()) json(200, '{"status":"ready"}');
      else json(503, '{"status":"starting"}');
    } else {
      json(404, '{"status":"not found"}');
    }
  });
  await listenMovable(server, host, port, onMoved);
  return server;
}
