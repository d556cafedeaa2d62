import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ServiceError, problemBody } from '../lib/errors/index.js';
import { newId } from '../lib/ids.js';
import type { Logger } from '../lib/log.js';
import { HEAD_SCAN_BYTES, MessageHeads } from './message-heads.js';
import type { RecordRefused } from './request-log/record-refused.js';

/** What Node's HTTP parser refused, in words a caller can act on (llhttp error codes). */
const PARSER_DETAILS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'The request line and headers are larger than the server accepts (16 KiB)',
  HPE_INVALID_METHOD: 'The request method is not an HTTP method',
  HPE_INVALID_URL: 'The request target is not a valid URL (raw spaces, control characters or non-ASCII bytes must be percent-encoded)',
  HPE_INVALID_HEADER_TOKEN: 'A header name or value holds a character HTTP does not allow (such as NUL, a bare CR or LF)',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length is not a single decimal number',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length was sent twice or alongside Transfer-Encoding',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding is malformed, or was sent alongside Content-Length',
  HPE_INVALID_CHUNK_SIZE: 'A chunk size of the chunked body is malformed',
  HPE_CR_EXPECTED: 'A line of the request does not end with CR LF',
  HPE_LF_EXPECTED: 'A line of the request does not end with CR LF',
  HPE_INVALID_VERSION: 'The HTTP version is not one this server speaks',
  HPE_INVALID_CONSTANT: 'The request line is malformed',
  HPE_INVALID_EOF_STATE: 'The connection closed in the middle of a request',
  ERR_HTTP_REQUEST_TIMEOUT: 'The request was not received in full in time',
};

interface ParserError extends Error {
  code?: string;
  reason?: string;
  /** The segment the parser was reading when it failed (Node sets it). */
  rawPacket?: Buffer;
  /** Where in `rawPacket` the parser failed (Node sets it for a parse error). */
  bytesParsed?: number;
}

const PATH_MAX_CHARS = 256;

/**
 * The request line and the Authorization header of a refused request, read from its raw bytes as
 * far as they are readable (a line ends at CR, LF or NUL). Linear in the bytes scanned.
 */
export function headOf(raw: Buffer | undefined): { method: string; path: string; authorization: string | undefined } {
  // Empty lines before a request line are allowed (RFC 9112 section 2.2).
  const text = raw === undefined ? '' : raw.subarray(0, HEAD_SCAN_BYTES).toString('latin1').replace(/^(\r?\n)+/, '');
  const end = text.indexOf('\r\n\r\n');
  const lines = (end >= 0 ? text.slice(0, end) : text).split(/\r\n|\n/);
  const [method = '', target = ''] = (lines[0] ?? '').split(' ');
  let authorization: string | undefined;
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === 'authorization') authorization = line.slice(colon + 1).trim();
  }
  const readable = (value: string) => (/^[\x21-\x7e]+$/.test(value) ? value : '');
  return { method: readable(method).slice(0, 16), path: readable(target.split('?')[0]).slice(0, PATH_MAX_CHARS), authorization };
}

/**
 * The raw answer to a request no route can see: a catalogue problem (400 ERR::REQUEST::INVALID; the
 * catalogue has no 408, 414 or 431) with its own X-Request-Id, closing the connection, since what
 * follows on it cannot be framed. When the request's head carried a valid key, the request log has
 * the id before the answer leaves (gateway/request-log/record-refused.ts; docs/platform.md
 * "Malformed HTTP").
 */
export function rawProblemAnswer(detail: string, docsUrl: string, requestId: string): Buffer {
  const problem = problemBody(new ServiceError('ERR::REQUEST::INVALID', detail), { docsUrl, requestId });
  const body = JSON.stringify(problem);
  const head = [
    `HTTP/1.1 ${problem.status} Bad Request`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  return Buffer.from(head + body, 'utf8');
}

/**
 * Follows each gateway connection's request messages (message-heads.ts) so a refused request's head
 * is its own, whole: the header lines of earlier TCP segments included, a pipelined request's body or
 * head in front of it excluded. Returns the head of the message a parse error refused. Listening to
 * 'data' takes Node's parser off its native read path for the gateway's connections
 * (docs/platform.md "Malformed HTTP").
 */
function followMessageHeads(server: Server): (socket: Socket, error: ParserError | undefined) => { head: Buffer; inBody: boolean } {
  const heads = new WeakMap<Socket, MessageHeads>();
  server.on('connection', (socket: Socket) => {
    const messages = new MessageHeads();
    heads.set(socket, messages);
    const follow = (chunk: Buffer) => {
      messages.take(chunk);
      if (messages.lost) socket.removeListener('data', follow);
    };
    socket.on('data', follow);
  });
  return (socket, error) => {
    const messages = heads.get(socket);
    const failing = error?.rawPacket;
    if (messages === undefined) return { head: failing ?? Buffer.alloc(0), inBody: false };
    heads.delete(socket);
    // A parse error comes while Node parses a segment, before this module's listener has seen it:
    // the bytes before the error are followed, those from it on end the refused head.
    if (failing !== undefined && typeof error?.bytesParsed === 'number') {
      messages.take(failing.subarray(0, error.bytesParsed));
      return { head: messages.refusedHead(failing.subarray(error.bytesParsed)), inBody: messages.inBody };
    }
    return { head: messages.refusedHead(undefined), inBody: messages.inBody };
  };
}

type HttpSocket = Socket & { _httpMessage?: (ServerResponse & { headersSent: boolean }) | null };

/**
 * Resolves once the socket has no response under way: a refused message's answer follows the answers
 * to the requests pipelined before it (Node attaches them one at a time, in order).
 */
async function responsesWritten(socket: HttpSocket): Promise<void> {
  for (let current = socket._httpMessage; current && !socket.destroyed; current = socket._httpMessage) {
    const response = current;
    await new Promise<void>((resolve) => {
      response.once('finish', resolve);
      response.once('close', resolve);
      socket.once('close', resolve);
    });
    // Node moves on to the next response in its own 'finish' listener, which ran before this one.
    if (socket._httpMessage === response) return;
  }
}

/**
 * Installs the answers for what Node's HTTP layer would otherwise answer bare or not at all: requests
 * its parser refuses (`clientError`) and CONNECT (this is no proxy). Expectations and a missing Host
 * are left to the app (gateway/middleware/http-framing.ts), which answers them like any other error.
 */
export function answerMalformedRequests(server: Server, app: RequestListener, docsUrl: string, logger: Logger, record?: RecordRefused): void {
  // The answer waits for the key's lookup; more bytes on the socket meanwhile must not answer twice.
  const refused = new WeakSet<Duplex>();
  const headBytes = followMessageHeads(server);
  const refuse = async (socket: Duplex, detail: string, head: ReturnType<typeof headOf>, afterResponses = false) => {
    refused.add(socket);
    const requestId = newId();
    const receivedAt = Date.now();
    await record?.({ requestId, receivedAt, ...head, detail }).catch((error: unknown) => logger.warn({ err: error, request_id: requestId }, 'recording a refused request failed'));
    if (afterResponses) await responsesWritten(socket as HttpSocket);
    socket.end(rawProblemAnswer(detail, docsUrl, requestId));
    return requestId;
  };
  server.on('clientError', (error: ParserError, socket: HttpSocket) => {
    if (refused.has(socket)) return;
    const { head, inBody } = headBytes(socket, error);
    // A body that turns malformed after its request's answer started cannot get a second answer. A
    // malformed message pipelined after others is answered once their answers are out.
    if (error.code === 'ECONNRESET' || !socket.writable || (inBody && socket._httpMessage?.headersSent)) {
      socket.destroy();
      return;
    }
    const known = PARSER_DETAILS[error.code ?? ''] ?? 'The request is not well-formed HTTP/1.1';
    const detail = error.reason ? `${known} (parser: ${error.reason})` : known;
    void refuse(socket, detail, headOf(head), !inBody).then((requestId) =>
      logger.info({ request_id: requestId, code: error.code, reason: error.reason }, 'malformed request refused'),
    );
  });
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    const authorization = req.headers.authorization;
    void refuse(socket, 'CONNECT is not served: this is an API, not a proxy', { method: 'CONNECT', path: '', authorization });
  });
  server.on('checkExpectation', app);
}
