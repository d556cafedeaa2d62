import http, { type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Request } from 'express';
import type { RequestListener } from 'node:http';

/** The raw connection of a WebSocket upgrade request, handed to the route once every check passed. */
export interface PendingUpgrade {
  socket: Socket;
  head: Buffer;
  /** Hands the socket over from the HTTP answer that would have refused it. */
  detach(): void;
}

const pending = new WeakMap<IncomingMessage, PendingUpgrade>();

/** The upgrade of a request that came as a WebSocket handshake on `path`, or null (a plain GET). */
export function pendingUpgradeOf(req: Request): PendingUpgrade | null {
  return pending.get(req) ?? null;
}

/**
 * Runs WebSocket handshakes on `path` through the app like any request (the same middlewares in the
 * same order: request id, key, rate limit, scope, then the route), with an answer written on the
 * raw socket: a refusal is an HTTP/1.1 problem+json and the socket ends; the route upgrades the
 * socket itself when it lets the request in. Handshakes on any other path get a 404 and end.
 */
export function routeUpgrades(server: Server, app: RequestListener, path: string): void {
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    if ((req.url ?? '').split('?')[0] !== path) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    socket.on('error', () => socket.destroy());
    const res = new http.ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.once('finish', () => socket.end());
    pending.set(req, { socket, head, detach: () => res.detachSocket(socket) });
    app(req, res);
  });
}
