import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/** The operator's /metrics (Prometheus), /healthz (the process answers) and /readyz (every watch has listed). */
export async function serveOperatorHttp(registry: Registry, ready: () => boolean, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const json = (status: number, body: object) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
        () => json(500, { status: 'error' }),
      );
    } else if (req.url === '/healthz') {
      json(200, { status: 'ok' });
    } else if (req.url === '/readyz') {
      if (ready()) json(200, { status: 'ready' });
      else json(503, { status: 'starting' });
    } else {
      json(404, { status: 'not found' });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
