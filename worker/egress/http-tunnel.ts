import type { Socket } from 'node:net';
import { ServiceError } from '../../lib/errors/index.js';

const MAX_RESPONSE_HEAD_BYTES = 16 * 1024;

function formatAuthority(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function basicCredentials(url: URL): string | null {
  if (url.username === '' && url.password === '') return null;
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return `Basic ${Buffer.from(pair).toString('base64')}`;
}

function readResponseHead(socket: Socket): Promise<{ status: number; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) {
        if (buffered.length > MAX_RESPONSE_HEAD_BYTES) finish(new Error('proxy response head too large'));
        return;
      }
      const statusLine = buffered.subarray(0, buffered.indexOf('\r\n')).toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
      if (!match) return finish(new Error(`malformed proxy status line: ${statusLine.slice(0, 80)}`));
      finish(null, { status: Number(match[1]), rest: buffered.subarray(end + 4) });
    };
    const onClose = (): void => finish(new Error('proxy closed the connection during CONNECT'));
    const onError = (error: Error): void => finish(error);
    const finish = (error: Error | null, value?: { status: number; rest: Buffer }): void => {
      socket.removeListener('data', onData);
      socket.removeListener('close', onClose);
      socket.removeListener('error', onError);
      if (error || !value) reject(error ?? new Error('no response'));
      else resolve(value);
    };
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.once('error', onError);
  });
}

/** Sends CONNECT host:port to an HTTP(S) proxy over `socket` and returns the socket once tunnelled. */
export async function connectThroughHttpProxy(socket: Socket, proxy: URL, host: string, port: number): Promise<Socket> {
  const authority = formatAuthority(host, port);
  const credentials = basicCredentials(proxy);
  const lines = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
  if (credentials) lines.push(`Proxy-Authorization: ${credentials}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  let head: { status: number; rest: Buffer };
  try {
    head = await readResponseHead(socket);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ServiceError('ERR::PROXY::UNREACHABLE', `The proxy did not complete CONNECT: ${message}`);
  }
  if (head.status === 407) throw new ServiceError('ERR::PROXY::AUTH_FAILED', 'The proxy answered 407 Proxy Authentication Required');
  if (head.status === 429) throw new ServiceError('ERR::PROXY::RATE_LIMITED', 'The proxy answered 429 Too Many Requests');
  if (head.status < 200 || head.status > 299) {
    throw new ServiceError('ERR::UPSTREAM::ERROR', `The proxy refused CONNECT to ${authority} with status ${head.status}`);
  }
  if (head.rest.length > 0) socket.unshift(head.rest);
  return socket;
}
