import type { IncomingMessage, RequestListener, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ServiceError, problemBody } from '../lib/errors/index.js';
import { newId } from '../lib/ids.js';
import type { Logger } from '../lib/log.js';

/** What Node's HTTP parser refused, in words a caller can act on (llhttp error codes). */
const PARSER_DETAILS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'The request line and headers are larger than the server accepts (16 KiB)',
  HPE_INVALID_METHOD: 'The request method is not an HTTP method',
  HPE_INVALID_URL: 'The request target is not a valid URL (raw spaces, control characters or non-ASCII bytes must be percent-encoded)',
  HPE_INVALID_HEADER_TOKEN: 'A header name or value holds a character HTTP does not allow (such as NUL, a bare CR or LF)',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length is not a single decimal number',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length and Transfer-Encoding were both sent',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding is not one this server accepts',
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
}

/**
 * The raw answer to a request no route can see: a catalogue problem (400 ERR::REQUEST::INVALID; the
 * catalogue has no 408, 414 or 431) with its own X-Request-Id, closing the connection, since what
 * follows on it cannot be framed. Nothing reaches the request log: no key was read, so the record
 * could belong to no organization (docs/platform.md "Malformed HTTP").
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
 * Installs the answers for what Node's HTTP layer would otherwise answer bare or not at all: requests
 * its parser refuses (`clientError`) and CONNECT (this is no proxy). Expectations and a missing Host
 * are left to the app (gateway/middleware/http-framing.ts), which answers them like any other error.
 */
export function answerMalformedRequests(server: Server, app: RequestListener, docsUrl: string, logger: Logger): void {
  server.on('clientError', (error: ParserError, socket: Socket) => {
    // A response already under way on this socket cannot be followed by another one.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const requestId = newId();
    logger.info({ request_id: requestId, code: error.code, reason: error.reason }, 'malformed request refused');
    const detail = PARSER_DETAILS[error.code ?? ''] ?? 'The request is not well-formed HTTP/1.1';
    socket.end(rawProblemAnswer(detail, docsUrl, requestId));
  });
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.end(rawProblemAnswer('CONNECT is not served: this is an API, not a proxy', docsUrl, newId()));
  });
  server.on('checkExpectation', app);
}
