import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/**
 * Every process's /metrics for Prometheus, with a /healthz for the kubelet, on a port of its own
 * (METRICS_PORT), so the public API port serves only /v1 and the health probes.
 */
export async function serveMetrics(registry: Registry, host: string, port: number): Promise<Server> {
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
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
