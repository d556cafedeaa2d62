import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../worker/egress/guard.js';
import { FetchEngine } from '../../worker/fetch/fetch-engine.js';
import { engineContext, fetchJob, rejection } from './fetch-engine.js';

/**
 * A target that answers the first request on each connection with keep-alive and closes the
 * connection when the next request arrives on it: what a server closing an idle connection at its
 * keep-alive timeout looks like to a client that sends on it at that moment. `closeFresh` makes it
 * close every connection unanswered.
 */
async function startClosingTarget(options: { reset: boolean; closeFresh?: boolean }) {
  let connections = 0;
  let answered = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let requests = 0;
    socket.on('error', () => undefined);
    socket.on('data', () => {
      requests += 1;
      if (requests === 1 && !options.closeFresh) {
        answered += 1;
        const body = `<html><body>answer ${answered}</body></html>`;
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body}`);
      } else if (options.reset) socket.resetAndDestroy();
      else socket.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/page`,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

describe.each([true, false])('a kept connection the target closes, impersonate=%s', (impersonate) => {
  const policy = { allowLoopback: true };
  let guard: EgressGuard;
  let engine: FetchEngine;
  beforeAll(async () => {
    guard = await EgressGuard.start({ policy });
    engine = new FetchEngine({ guard, policy });
  });
  afterAll(async () => {
    await guard.close();
  });

  it.each([false, true])('a GET is sent again on a new connection (reset=%s)', async (reset) => {
    const target = await startClosingTarget({ reset });
    try {
      const texts: string[] = [];
      for (let i = 0; i < 3; i += 1) texts.push((await engine.fetch(fetchJob({ url: target.url, impersonate }), engineContext())).text ?? '');
      expect(texts).toEqual([1, 2, 3].map((n) => `<html><body>answer ${n}</body></html>`));
      expect(target.connections).toBeGreaterThanOrEqual(3);
    } finally {
      await target.close();
    }
  });

  it('a target that closes every connection unanswered still fails the scrape', async () => {
    const target = await startClosingTarget({ reset: false, closeFresh: true });
    try {
      const error = await rejection(engine.fetch(fetchJob({ url: target.url, impersonate, retries: 0 }), engineContext()));
      expect(['ERR::UPSTREAM::ERROR', 'ERR::UPSTREAM::CONNECTION_RESET']).toContain(error.code);
    } finally {
      await target.close();
    }
  });
});
