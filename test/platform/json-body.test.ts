import express, { type NextFunction, type Request, type Response } from 'express';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonBody } from '../../gateway/middleware/json-body.js';

/** Echoes the decoded body; records, per request, whether the request stream ended and closed afterwards. */
function app(closed: Map<string, Promise<boolean>>) {
  const server = express();
  server.post('/echo', (req: Request, _res: Response, next: NextFunction) => {
    const id = String(req.query.id);
    closed.set(id, new Promise((resolve) => req.once('close', () => resolve(req.readableEnded))));
    // Another turn first, as the gateway's authentication and rate limit take one before the body is read.
    setImmediate(next);
  });
  server.post('/echo', jsonBody({ required: true }), (_req, res) => res.json({ body: res.locals.body, bytesIn: res.locals.bytesIn }));
  server.use((error: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => res.status(400).json({ error: error.message }));
  return server;
}

/** Sends `parts` on a raw connection, `gapMs` apart, and returns the answer's status line and body. */
async function send(port: number, parts: string[], gapMs = 0): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (answer += chunk));
  const ended = new Promise((resolve) => socket.once('close', resolve));
  for (const part of parts) {
    socket.write(part);
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.end();
  await ended;
  const [head, body] = answer.split('\r\n\r\n');
  return `${head.split('\r\n')[0]} ${body}`;
}

const BODY = JSON.stringify({ url: 'https://example.com/', n: 1 });
const head = (id: string, framing: string) => `POST /echo?id=${id} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${framing}\r\n`;

describe('jsonBody: reading the body (gateway/middleware/json-body.ts)', () => {
  let server: Server;
  let port: number;
  const closed = new Map<string, Promise<boolean>>();
  beforeAll(async () => {
    server = app(closed).listen(0);
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it.each([
    ['with its headers in one write', 'one', [head('one', `Content-Length: ${BODY.length}\r\n`) + BODY], 0],
    ['after its headers', 'after', [head('after', `Content-Length: ${BODY.length}\r\n`), BODY], 20],
    ['in pieces, slower than the request is handled', 'pieces', [head('pieces', `Content-Length: ${BODY.length}\r\n`), BODY.slice(0, 10), BODY.slice(10)], 20],
    ['chunked', 'chunked', [head('chunked', 'Transfer-Encoding: chunked\r\n'), `${BODY.length.toString(16)}\r\n${BODY}\r\n`, '0\r\n\r\n'], 20],
  ])('decodes a body sent %s, and the request stream ends and closes', async (_how, id, parts, gapMs) => {
    const answer = await send(port, parts, gapMs);
    expect(answer).toBe(`HTTP/1.1 200 OK ${JSON.stringify({ body: JSON.parse(BODY), bytesIn: BODY.length })}`);
    expect(await closed.get(id)).toBe(true);
  });

  it('refuses an empty body with Content-Length: 0', async () => {
    const answer = await send(port, [head('empty', 'Content-Length: 0\r\n')]);
    expect(answer).toMatch(/^HTTP\/1.1 400 Bad Request .*Request body is empty; send a JSON object/);
  });
});
