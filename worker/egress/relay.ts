import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { ServiceError } from '../../lib/errors/index.js';
import type { LeaseRecord } from './lease.js';

/** Header on every answer the guard itself makes, naming the error code; targets never set it. */
export const EGRESS_ERROR_HEADER = 'x-trawler-egress-error';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

/** The status the guard answers a client with for a refused or failed egress. */
export function refusalStatus(error: ServiceError): number {
  if (error.code === 'ERR::SECURITY::SSRF_BLOCKED' || error.code === 'ERR::SECURITY::INVALID_URL') return 403;
  if (error.code === 'ERR::UPSTREAM::TIMEOUT') return 504;
  return 502;
}

export function asServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ServiceError('ERR::UPSTREAM::ERROR', `Egress failed: ${message}`, { cause: error });
}

export function writeRawRefusal(socket: Duplex, status: number, reason: string, extra: string[] = []): void {
  if (socket.destroyed) return;
  socket.end([`HTTP/1.1 ${status} ${reason}`, ...extra, 'Connection: close', 'Content-Length: 0', '', ''].join('\r\n'));
}

/** Raw header pairs without the hop-by-hop ones, which belong to one connection. */
export function filterRawHeaders(raw: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (!HOP_BY_HOP.has(raw[i].toLowerCase())) kept.push(raw[i], raw[i + 1]);
  }
  return kept;
}

/** Bytes both ways until either side closes, which closes the other. */
export function pipeBoth(a: Duplex, b: Duplex): void {
  a.pipe(b);
  b.pipe(a);
  const closeBoth = (): void => {
    a.destroy();
    b.destroy();
  };
  a.once('close', closeBoth);
  b.once('close', closeBoth);
  a.on('error', closeBoth);
  b.on('error', closeBoth);
}

/** A reset from the target, reported to the use of the lease that opened the connection. */
export function watchReset(lease: LeaseRecord, use: number, upstream: Socket, host: string): void {
  upstream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'ECONNRESET' && lease.isCurrent(use)) {
      lease.recordFailure(new ServiceError('ERR::UPSTREAM::CONNECTION_RESET', `${host} reset the connection`));
    }
  });
}
