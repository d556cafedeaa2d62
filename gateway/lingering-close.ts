import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Longest a connection the client asked to close stays open after the answer, for the body still arriving. */
export const LINGER_MS = 30_000;
const LINGER_POLL_MS = 100;

/**
 * Lingering close (RFC 9112 section 9.6). A client that asks to close (`Connection: close`, HTTP/1.0)
 * may still be sending a body the route never reads (a huge Content-Length on GET /v1/workers, a
 * refused 5 MiB upload) when the answer is ready. Node then closes the socket at once, and the
 * client's next bytes draw a TCP reset that throws away the answer still unread in the client's
 * buffer: the client saw its connection closed with no answer. So for a request whose body has not
 * fully arrived, the connection is kept open past the answer (Node keeps reading and discarding the
 * body, as it does on a keep-alive connection) and closed once the body has arrived, or after
 * LINGER_MS. Requests with no body, or whose body was read whole, close exactly as before.
 */
export function closeLingering(server: Server, lingerMs = LINGER_MS): void {
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!hasBody(req) || res.shouldKeepAlive || req.complete) return;
    res.shouldKeepAlive = true;
    const socket = req.socket;
    res.once('finish', () => {
      if (req.complete) return void socket.end();
      // A reader that gave up on the body (a 413) destroyed the request, which then emits no 'end':
      // whether the body has arrived is read off the request every so often instead.
      const started = Date.now();
      const poll = setInterval(() => {
        if (req.complete) {
          clearInterval(poll);
          socket.end();
        } else if (Date.now() - started >= lingerMs) {
          socket.destroy();
        }
      }, LINGER_POLL_MS);
      req.once('end', () => socket.end());
      socket.once('close', () => clearInterval(poll));
    });
  });
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}
