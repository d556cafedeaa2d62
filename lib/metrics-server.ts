import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** Default METRICS_PORT per program, so a gateway and workers on one host do not collide. */
export const DEFAULT_METRICS_PORT = { gateway: 9464, worker: 9465 } as const;

/** Ports tried after a taken one (9465, 9466, … for several workers), before any free port. */
const NEXT_PORTS_TRIED = 10;

export interface MetricsServerOptions {
  /** Where a taken port moved the server to; without it the port is fixed and a taken one is an error. */
  onMoved?: (wanted: number, actual: number, reason: string) => void;
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
  const movable = onMoved !== undefined && port !== 0;
  const candidates = movable ? [...Array.from({ length: NEXT_PORTS_TRIED }, (_, i) => port + i).filter((p) => p <= 65535), 0] : [port];
  let lastError: unknown = null;
  for (const candidate of candidates) {
    try {
      await listen(server, host, candidate);
      const actual = (server.address() as AddressInfo).port;
      if (candidate !== port) onMoved?.(port, actual, describe(lastError));
      return server;
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (error: Error) => reject(error);
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'EADDRINUSE' ? 'taken by another process' : String(code ?? error);
}
