import { describe, expect, it } from 'vitest';
import { MessageHeads } from '../../../gateway/message-heads.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');

/** Three pipelined messages (a Content-Length body holding blank lines, a chunked body with extensions and a trailer), then a head under way. */
const STREAM =
  'POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\n\r\n\r\nx' +
  'GET /b HTTP/1.1\r\nHost: y\r\n\r\n' +
  'POST /c HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3;ext=1\r\n\r\n\r\r\n0\r\nTrailer: v\r\n\r\n' +
  'DELETE /d HTTP/1.1\r\nAuthorization: k\r\nX-A: a';

function headAfter(segments: string[], failing?: string): string {
  const messages = new MessageHeads();
  for (const segment of segments) messages.take(bytes(segment));
  return messages.refusedHead(failing === undefined ? undefined : bytes(failing)).toString('latin1');
}

describe('following request messages on a connection (refused requests, gateway/message-heads.ts)', () => {
  it('keeps the head under way after pipelined messages with and without bodies', () => {
    expect(headAfter([STREAM])).toBe('DELETE /d HTTP/1.1\r\nAuthorization: k\r\nX-A: a');
  });

  it('finds the same head however the bytes are split into segments', () => {
    for (let size = 1; size <= 7; size += 1) {
      const segments = STREAM.match(new RegExp(`[^]{1,${size}}`, 'g')) ?? [];
      expect(headAfter(segments)).toBe('DELETE /d HTTP/1.1\r\nAuthorization: k\r\nX-A: a');
    }
  });

  it('adds the failing segment from the error on, and keeps the head of a body the error is in', () => {
    expect(headAfter(['GET /b HTTP/1.1\r\nAuthorization: k\r\n'], 'X-A: \0\r\n\r\n')).toBe('GET /b HTTP/1.1\r\nAuthorization: k\r\nX-A: \0\r\n\r\n');
    expect(headAfter(['POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n'], 'zz\r\n')).toBe('POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n');
  });

  it('follows nothing after CONNECT or an Upgrade', () => {
    const messages = new MessageHeads();
    messages.take(bytes('GET /v1/browser HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'));
    expect(messages.lost).toBe(true);
  });
});
