import { connect, type Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { isUlid } from '../../lib/ids.js';
import { embeddedForSuite } from '../support/suite-service.js';

const service = embeddedForSuite({ engines: [] });
let port: number;

beforeAll(async () => {
  port = Number(new URL(service.url).port);
});

interface RawAnswer {
  statusLine: string;
  headers: Record<string, string>;
  body: string;
}

/** Writes raw bytes on a new connection and reads until the server closes it or the answer is complete. */
function exchange(bytes: Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const finish = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no complete answer: ${JSON.stringify(text)}`));
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const length = Number(headers['content-length'] ?? -1);
      const body = text.slice(split + 4);
      if (length >= 0 && Buffer.byteLength(body) < length) return false;
      socket.destroy();
      resolve({ statusLine, headers, body });
      return true;
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (Buffer.concat(chunks).includes('\r\n\r\n')) finish();
    });
    socket.on('end', finish);
    socket.on('error', reject);
    socket.write(bytes);
  });
}

const raw = (text: string) => Buffer.from(text, 'latin1');
const get = (extraHeaders: string) => raw(`GET /healthz HTTP/1.1\r\nHost: x\r\n${extraHeaders}\r\n`);

const CASES: Array<[string, Buffer]> = [
  ['NUL in a header value', get('X-A: a\0b\r\n')],
  ['bare CR in a header value', get('X-A: a\rb\r\n')],
  ['bare LF in a header value', get('X-A: a\nb\r\n')],
  ['lines ended by bare LF', raw('GET /healthz HTTP/1.1\nHost: x\n\n')],
  ['a control character in a header name', get('X\x01A: b\r\n')],
  ['DEL in a header value', get('X-A: a\x7fb\r\n')],
  ['whitespace before the colon', get('X-A : b\r\n')],
  ['obsolete line folding', get('X-A: a\r\n b\r\n')],
  ['headers over the limit', get(`X-A: ${'a'.repeat(20_000)}\r\n`)],
  ['a URL over the limit', raw(`GET /v1/requests?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)],
  ['an unknown method', raw('FROB /healthz HTTP/1.1\r\nHost: x\r\n\r\n')],
  ['a lower-case method', raw('get /healthz HTTP/1.1\r\nHost: x\r\n\r\n')],
  ['a Content-Length that is not a number', raw('POST /v1/scrape HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n')],
  ['two Content-Length headers', raw('POST /v1/scrape HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}')],
  ['Content-Length with Transfer-Encoding', raw('POST /v1/scrape HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')],
  ['raw non-ASCII bytes in the path', raw('GET /v1/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n')],
  ['raw UTF-8 in the path', Buffer.from('GET /v1/sessions/é HTTP/1.1\r\nHost: x\r\n\r\n', 'utf8')],
  ['NUL in the path', raw('GET /v1/\0 HTTP/1.1\r\nHost: x\r\n\r\n')],
  ['a space in the path', raw('GET /v1/a b HTTP/1.1\r\nHost: x\r\n\r\n')],
  ['an unknown HTTP version', raw('GET /healthz HTTP/7.1\r\nHost: x\r\n\r\n')],
  ['an HTTP/2 preface', raw('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')],
  ['no Host header', raw('GET /healthz HTTP/1.1\r\n\r\n')],
  ['an expectation other than 100-continue', get('Expect: teapot\r\n')],
  ['CONNECT', raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')],
];

describe('malformed HTTP gets a problem+json answer with X-Request-Id (issue 8 item 7)', () => {
  it.each(CASES)('%s', async (_name, bytes) => {
    const answer = await exchange(bytes);
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    const requestId = answer.headers['x-request-id'];
    expect(isUlid(requestId ?? '')).toBe(true);
    const body = JSON.parse(answer.body) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 400, code: 'ERR::REQUEST::INVALID', retryable: false, request_id: requestId });
    expect(body.detail).toEqual(expect.any(String));
  });

  it.each([
    ['Content-Length with Transfer-Encoding', 'Transfer-Encoding'],
    ['headers over the limit', '16 KiB'],
    ['an unknown method', 'method'],
    ['raw non-ASCII bytes in the path', 'percent-encoded'],
    ['no Host header', 'Host'],
  ])('says what was wrong: %s', async (name, words) => {
    const bytes = CASES.find(([label]) => label === name)?.[1] as Buffer;
    expect(JSON.parse((await exchange(bytes)).body).detail).toContain(words);
  });

  it('keeps serving well-formed requests on new connections afterwards', async () => {
    const answer = await exchange(raw('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 200 /);
    expect(isUlid(answer.headers['x-request-id'] ?? '')).toBe(true);
  });
});

/**
 * Sends a request's head and then `bodyBytes` of body, reading nothing until all of it is written
 * (as curl and most clients do: the socket does not even read from the kernel meanwhile), then
 * resolves with the answer (an error only when none arrived). A server that closed while bytes were
 * still arriving draws a TCP reset, which throws the unread answer away.
 */
function sendThenRead(head: string, bodyBytes: number, chunked: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    const socket = connect({
      port,
      host: '127.0.0.1',
      onread: {
        buffer: Buffer.alloc(65_536),
        callback: (size: number, buffer: Uint8Array) => {
          received.push(Buffer.from(buffer.subarray(0, size)));
          if (complete(answerSoFar())) done();
          return true;
        },
      },
    });
    socket.pause();
    const answerSoFar = () => Buffer.concat(received).toString('utf8');
    const complete = (text: string) => {
      const split = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, split))?.[1];
      return split >= 0 && length !== undefined && Buffer.byteLength(text.slice(split + 4)) >= Number(length);
    };
    const done = (error?: Error) => {
      const text = answerSoFar();
      if (text === '') reject(error ?? new Error('the connection closed with no answer'));
      else resolve(text);
      socket.destroy();
    };
    socket.on('close', () => done());
    socket.on('error', done);
    socket.write(raw(head));
    const block = Buffer.alloc(65_536, 97);
    const framed = chunked ? Buffer.concat([raw('10000\r\n'), block, raw('\r\n')]) : block;
    let sent = 0;
    const pump = () => {
      while (sent < bodyBytes && !socket.destroyed) {
        sent += block.length;
        if (!socket.write(framed)) return void socket.once('drain', pump);
      }
      if (chunked && !socket.destroyed) socket.write(raw('0\r\n\r\n'));
      socket.resume();
    };
    pump();
  });
}

describe('a body the route does not read, on a connection the server closes (issue 27 item 8)', () => {
  const routes: Array<[string, string]> = [
    ['GET', '/v1/workers'],
    ['POST', '/v1/sessions'],
    ['POST', '/v1/sessions/s_unknown/release'],
    ['DELETE', '/v1/sessions/s_unknown'],
  ];
  const framings: Array<[string, string, boolean]> = [
    ['a huge Content-Length', 'Content-Length: 99999999999\r\n', false],
    ['a 16 MiB chunked body', 'Transfer-Encoding: chunked\r\n', true],
  ];
  for (const [method, path] of routes) {
    for (const [framing, header, chunked] of framings) {
      it(`${method} ${path} with ${framing} is answered, with an X-Request-Id that resolves`, async () => {
        const head = `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${service.secret}\r\nContent-Type: application/json\r\nConnection: close\r\n${header}\r\n`;
        const answer = await sendThenRead(head, 16 * 1_048_576, chunked);
        expect(answer).toMatch(/^HTTP\/1\.1 [2-4]\d\d /);
        const requestId = /\r\nX-Request-Id: (\w+)\r\n/i.exec(answer)?.[1] ?? '';
        expect(isUlid(requestId)).toBe(true);
        if (!answer.startsWith('HTTP/1.1 200')) expect(answer).toMatch(/\r\nContent-Type: application\/problem\+json/i);
        const found = await fetch(`${service.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${service.secret}` } });
        expect(found.status).toBe(200);
      });
    }
  }
});

describe('a request refused before any route, sent with a valid key (issue 27 item 8)', () => {
  const auth = () => `Authorization: Bearer ${service.secret}\r\n`;
  const cases: Array<[string, () => Buffer]> = [
    ['NUL in Content-Type', () => raw(`POST /v1/scrape HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: appl\0ication/json\r\nContent-Length: 2\r\n\r\n{}`)],
    ['NUL in another header value', () => raw(`GET /v1/workers HTTP/1.1\r\nHost: x\r\n${auth()}X-A: a\0b\r\n\r\n`)],
    ['a bare LF inside a header value', () => raw(`GET /v1/workers HTTP/1.1\r\nHost: x\r\n${auth()}X-A: a\nb\r\n\r\n`)],
    ['CONNECT', () => raw(`CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n${auth()}\r\n`)],
    ['a blank batch id', () => raw(`POST /v1/batch/%20/close HTTP/1.1\r\nHost: x\r\n${auth()}Connection: close\r\n\r\n`)],
  ];
  it.each(cases)('%s: the X-Request-Id of the problem answer resolves with GET /v1/requests/{id}', async (_name, bytes) => {
    const answer = await exchange(bytes());
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 4\d\d /);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    const requestId = answer.headers['x-request-id'] ?? '';
    const found = await fetch(`${service.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${service.secret}` } });
    expect(found.status).toBe(200);
    expect(((await found.json()) as { id: string }).id).toBe(requestId);
  });

  it('resolves the id of a refused request whose Authorization header came in an earlier TCP segment', async () => {
    // The second segment is written only once the gateway has read the first, so the parser gets them apart.
    const server = service.gateway.server;
    const firstRead = new Promise<void>((resolve) => {
      server.once('connection', (accepted: Socket) => accepted.once('data', () => resolve()));
    });
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => undefined);
    socket.write(raw(`GET /v1/workers HTTP/1.1\r\nHost: x\r\n${auth()}`));
    await firstRead;
    socket.write(raw('X-A: a\0b\r\n\r\n'));
    await closed;
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    const requestId = /x-request-id: (\S+)/i.exec(text)?.[1] ?? '';
    const found = await fetch(`${service.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${service.secret}` } });
    expect(found.status).toBe(200);
    expect(await found.json()).toMatchObject({ id: requestId });
  });

  /** Reads a refused request's record through GET /v1/requests/{id}, given the raw answer text. */
  async function recordOf(answerText: string): Promise<{ id: string; features: Record<string, unknown> }> {
    const requestId = /x-request-id: (\S+)/i.exec(answerText.slice(answerText.lastIndexOf('HTTP/1.1 400')))?.[1] ?? '';
    const found = await fetch(`${service.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${service.secret}` } });
    expect(found.status).toBe(200);
    return (await found.json()) as { id: string; features: Record<string, unknown> };
  }

  /** Writes `segments` on one connection, each once the gateway has read the one before, and reads until it closes. */
  async function pipelined(segments: string[]): Promise<string> {
    const server = service.gateway.server;
    const reads: Array<() => void> = [];
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const gatewaySide = await accepted;
    gatewaySide.on('data', () => reads.shift()?.());
    for (const segment of segments) {
      const read = new Promise<void>((resolve) => reads.push(resolve));
      socket.write(raw(segment));
      await Promise.race([read, closed]);
    }
    await closed;
    return Buffer.concat(chunks).toString('utf8');
  }

  const refusedDelete = () => `DELETE /v1/sessions/s_refused HTTP/1.1\r\nHost: x\r\n${auth()}X-A: a\0b\r\n\r\n`;

  it.each([
    ['after a request with a Content-Length body, in one segment', () => [`POST /v1/sessions/s_x/release HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: 16\r\n\r\n{"a":"GET /x\r\n"}${refusedDelete()}`]],
    ['after a chunked body, in one segment', () => [`POST /v1/sessions/s_x/release HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n${refusedDelete()}`]],
    ['after a request without a body, in one segment', () => [`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n${refusedDelete()}`]],
    ['after a body, its own head split over segments', () => {
      const whole = `POST /v1/sessions/s_x/release HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}${refusedDelete()}`;
      const cut = whole.indexOf('X-A:');
      return [whole.slice(0, whole.indexOf('{}') + 4), whole.slice(whole.indexOf('{}') + 4, cut), whole.slice(cut)];
    }],
  ])('a pipelined refused request is recorded with its own method and path: %s', async (_name, segments) => {
    const text = await pipelined(segments());
    expect(text).toMatch(/HTTP\/1\.1 400 [^]*problem\+json/);
    const record = await recordOf(text);
    expect(record.features).toMatchObject({ method: 'DELETE', route: '/v1/sessions/s_refused' });
  });

  it('records nothing for a refused request without a valid key', async () => {
    const answer = await exchange(raw('GET /v1/workers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer svc_live_nope\r\nX-A: a\0b\r\n\r\n'));
    const found = await fetch(`${service.url}/v1/requests/${answer.headers['x-request-id'] ?? ''}`, { headers: { authorization: `Bearer ${service.secret}` } });
    expect(found.status).toBe(404);
  });
});
