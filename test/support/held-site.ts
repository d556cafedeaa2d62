import http from 'node:http';
import type { Socket } from 'node:net';

/**
 * A loopback target whose pages are answered only when the test says so: a request that reached it
 * stays in flight until `releaseAll()`, so "a render holds its slot" is a state the test controls.
 */
export interface HeldSite {
  url: string;
  /** Requests that reached the site so far. */
  arrived(): number;
  /** Most requests in flight at once. */
  maxInFlight(): number;
  releaseAll(): void;
  close(): Promise<void>;
}

export async function startHeldSite(): Promise<HeldSite> {
  const waiting: http.ServerResponse[] = [];
  const sockets = new Set<Socket>();
  let arrived = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let released = false;
  const answer = (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>held</body></html>');
  const server = http.createServer((_req, res) => {
    arrived += 1;
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => (inFlight -= 1));
    if (released) answer(res);
    else waiting.push(res);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/held`,
    arrived: () => arrived,
    maxInFlight: () => maxInFlight,
    releaseAll() {
      released = true;
      for (const res of waiting.splice(0)) answer(res);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
