import { connect } from 'node:net';
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
