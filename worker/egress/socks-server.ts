import net, { type Socket } from 'node:net';
import type { ServiceError } from '../../lib/errors/index.js';

/**
 * The guard's SOCKS5 listener (RFC 1928 CONNECT with RFC 1929 username/password), for direct egress
 * (docs/ssrf.md, "SOCKS5 listener"). The client sends the host name (socks5h); the guard resolves,
 * checks and dials it, then only pipes bytes. Only the handshake is parsed here; `connect` does the rest.
 */

/** A client that has not finished its handshake by then is dropped. */
const HANDSHAKE_TIMEOUT_MS = 10_000;

const VERSION = 0x05;
const AUTH_VERSION = 0x01;
const METHOD_USER_PASSWORD = 0x02;
const NO_ACCEPTABLE_METHOD = 0xff;
const COMMAND_CONNECT = 0x01;
const ADDRESS_IPV4 = 0x01;
const ADDRESS_DOMAIN = 0x03;
const ADDRESS_IPV6 = 0x04;

/** RFC 1928 reply codes. */
export const SocksReply = {
  granted: 0x00,
  generalFailure: 0x01,
  notAllowed: 0x02,
  hostUnreachable: 0x04,
  connectionRefused: 0x05,
  ttlExpired: 0x06,
  commandNotSupported: 0x07,
  addressNotSupported: 0x08,
} as const;

export interface SocksHandlers {
  /** The lease behind these credentials, or null to refuse them. */
  authenticate(username: string, password: string): unknown;
  /**
   * Opens the destination for an authenticated client and pipes it; returns the reply code. It
   * writes nothing to the client: `reply` sends the answer once the destination is open or refused.
   */
  connect(lease: unknown, host: string, port: number, client: Socket, reply: (code: number) => void): Promise<void>;
}

/** The SOCKS reply for a refusal the guard recorded on the lease. */
export function socksReplyFor(error: ServiceError): number {
  switch (error.code) {
    case 'ERR::SECURITY::SSRF_BLOCKED':
    case 'ERR::SECURITY::INVALID_URL':
      return SocksReply.notAllowed;
    case 'ERR::UPSTREAM::DNS_FAILED':
      return SocksReply.hostUnreachable;
    case 'ERR::UPSTREAM::TIMEOUT':
      return SocksReply.ttlExpired;
    case 'ERR::UPSTREAM::ERROR':
      return SocksReply.connectionRefused;
    default:
      return SocksReply.generalFailure;
  }
}

class HandshakeClosed extends Error {}

/** Waits until `length` bytes are buffered and takes exactly those; the rest stays for the pipe. */
async function take(socket: Socket, length: number): Promise<Buffer> {
  if (length === 0) return Buffer.alloc(0);
  for (;;) {
    const chunk = socket.read(length) as Buffer | null;
    if (chunk !== null) return chunk;
    if (socket.readableEnded || socket.destroyed) throw new HandshakeClosed();
    await new Promise<void>((resolve) => {
      const done = (): void => {
        socket.off('readable', done);
        socket.off('close', done);
        resolve();
      };
      socket.on('readable', done);
      socket.on('close', done);
    });
  }
}

function ipv6Text(bytes: Buffer): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return groups.join(':');
}

async function readDestination(socket: Socket): Promise<{ command: number; host: string; port: number } | number> {
  const [version, command, , addressType] = await take(socket, 4);
  if (version !== VERSION) throw new HandshakeClosed();
  let host: string;
  if (addressType === ADDRESS_IPV4) host = [...(await take(socket, 4))].join('.');
  else if (addressType === ADDRESS_IPV6) host = ipv6Text(await take(socket, 16));
  else if (addressType === ADDRESS_DOMAIN) host = (await take(socket, (await take(socket, 1))[0])).toString('latin1');
  else return SocksReply.addressNotSupported;
  const port = (await take(socket, 2)).readUInt16BE(0);
  return { command, host, port };
}

async function handshake(socket: Socket, handlers: SocksHandlers): Promise<void> {
  const [version, methodCount] = await take(socket, 2);
  const methods = await take(socket, methodCount);
  if (version !== VERSION || !methods.includes(METHOD_USER_PASSWORD)) {
    socket.end(Buffer.from([VERSION, NO_ACCEPTABLE_METHOD]));
    return;
  }
  socket.write(Buffer.from([VERSION, METHOD_USER_PASSWORD]));
  const [authVersion, userLength] = await take(socket, 2);
  const username = (await take(socket, userLength)).toString('utf8');
  const password = (await take(socket, (await take(socket, 1))[0])).toString('utf8');
  const lease = authVersion === AUTH_VERSION ? handlers.authenticate(username, password) : null;
  if (lease === null) {
    socket.end(Buffer.from([AUTH_VERSION, 0x01]));
    return;
  }
  socket.write(Buffer.from([AUTH_VERSION, 0x00]));
  const destination = await readDestination(socket);
  const reply = (code: number): void => {
    if (socket.destroyed) return;
    // BND.ADDR 0.0.0.0:0: clients of a CONNECT do not use it.
    const answer = Buffer.from([VERSION, code, 0x00, ADDRESS_IPV4, 0, 0, 0, 0, 0, 0]);
    if (code === SocksReply.granted) socket.write(answer);
    else socket.end(answer);
  };
  if (typeof destination === 'number') return reply(destination);
  if (destination.command !== COMMAND_CONNECT) return reply(SocksReply.commandNotSupported);
  socket.setTimeout(0);
  await handlers.connect(lease, destination.host, destination.port, socket, reply);
}

/** Starts the listener on 127.0.0.1 at a random port. */
export async function startSocksServer(handlers: SocksHandlers): Promise<{ server: net.Server; port: number }> {
  const server = net.createServer({ noDelay: true }, (socket) => {
    socket.on('error', () => socket.destroy());
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () => socket.destroy());
    handshake(socket, handlers).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('egress SOCKS listener has no TCP address');
  return { server, port: address.port };
}
