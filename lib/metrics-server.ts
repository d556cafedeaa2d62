import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** Default METRICS_PORT per program, so a gateway and workers on one host do not collide. */
export const DEFAULT_METRICS_PORT = { gateway: 9464, worker: 9465 } as const;

/** Ports tried after a taken one (9465, 9466, … for several workers), before any free port. */
const NEXT_PORTS_TRIED = 10;

/**
 * Every process's /metrics for Prometheus, with a /healthz for the kubelet, on a port of its own
 * (METRICS_PORT), so the public API port serves only /v1 and the health probes. A taken port never
 * stops the process: the next ports are tried, then any free one, and `onMoved` says where it went.
 */
export async function serveMetrics(
  registry: Registry,
  host: string,
  port: number,
  onMoved: (wanted: number, actual: number, reason: string) => void = () => undefined,
): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    } else if (path === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}');
    } else {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"status":"not found"}');
    }
  });
  const candidates = port === 0 ? [0] : [...Array.from({ length: NEXT_PORTS_TRIED }, (_, i) => port + i).filter((p) => p <= 65535), 0];
  let lastError: unknown = null;
  for (const candidate of candidates) {
    try {
      await listen(server, host, candidate);
      const actual = (server.address() as AddressInfo).port;
      if (candidate !== port) onMoved(port, actual, describe(lastError));
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
