import net from 'node:net';
import { Impit } from 'impit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../worker/egress/guard.js';
import { FetchEngine } from '../../worker/fetch/fetch-engine.js';
import { IMPIT_BROWSER } from '../../worker/fetch/impit-client.js';
import { engineContext, fetchJob } from './fetch-engine.js';

/** A plain-HTTP server that keeps each request's header lines as they came, in order. */
async function startRawCapture(): Promise<{ url: string; requests: Map<string, Array<[string, string]>>; close(): Promise<void> }> {
  const requests = new Map<string, Array<[string, string]>>();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      let end: number;
      while ((end = buffered.indexOf('\r\n\r\n')) !== -1) {
        const [requestLine, ...lines] = buffered.slice(0, end).split('\r\n');
        buffered = buffered.slice(end + 4);
        const path = requestLine.split(' ')[1];
        requests.set(path, lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 13\r\n\r\n<p>seen</p>\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const policy = { allowLoopback: true };
let capture: Awaited<ReturnType<typeof startRawCapture>>;
let guard: EgressGuard;
let engine: FetchEngine;

beforeAll(async () => {
  capture = await startRawCapture();
  guard = await EgressGuard.start({ policy });
  engine = new FetchEngine({ guard, policy });
});
afterAll(async () => {
  await engine.stop();
  await guard.close();
  await capture.close();
});

/** Header lines other than the connection's own (host, connection), which a client places itself. */
function navigationHeaders(lines: Array<[string, string]> | undefined): Array<[string, string]> {
  if (!lines) throw new Error('the request did not reach the capture server');
  return lines.filter(([name]) => !['host', 'connection'].includes(name.toLowerCase()));
}

describe('impersonate=true on a plain-HTTP target', () => {
  it.each([
    ['no custom headers', {}],
    ['custom headers, one replacing a Chrome default', { 'X-Custom': 'a', 'User-Agent': 'mine' }],
  ])("sends impit's own Chrome headers, values and order (%s)", async (_label, custom: Record<string, string>) => {
    const tag = Math.random().toString(36).slice(2);
    const impit = new Impit({ browser: IMPIT_BROWSER, followRedirects: false });
    await (await impit.fetch(`${capture.url}/impit-${tag}`, { headers: custom, redirect: 'manual' })).text();
    const page = await engine.fetch(fetchJob({ url: `${capture.url}/engine-${tag}`, impersonate: true, custom_headers: custom }), engineContext());
    expect(page.text).toBe('<p>seen</p>\r\n');
    const sent = navigationHeaders(capture.requests.get(`/engine-${tag}`));
    expect(sent).toEqual(navigationHeaders(capture.requests.get(`/impit-${tag}`)));
    expect(sent.length).toBeGreaterThanOrEqual(13);
  });

  it('still sends a custom Expect header, which undici refuses (impit sends that request)', async () => {
    const page = await engine.fetch(fetchJob({ url: `${capture.url}/expect`, impersonate: true, custom_headers: { Expect: 'nothing' } }), engineContext());
    expect(page.status).toBe(200);
    expect(capture.requests.get('/expect')?.find(([name]) => name.toLowerCase() === 'expect')?.[1]).toBe('nothing');
  });

  it('sends Host first and asks to keep the connection, as Chrome does over HTTP/1.1', async () => {
    await engine.fetch(fetchJob({ url: `${capture.url}/order`, impersonate: true }), engineContext());
    const names = (capture.requests.get('/order') ?? []).map(([name]) => name.toLowerCase());
    expect(names.slice(0, 2)).toEqual(['host', 'connection']);
  });
});
