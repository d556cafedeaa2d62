import type { Socket } from 'node:net';
import { ServiceError } from '../../lib/errors/index.js';
import type { GuardCore } from './guard-core.js';
import type { LeaseRecord } from './lease.js';
import { asServiceError, pipeBoth, watchReset } from './relay.js';
import { SocksReply, socksReplyFor } from './socks-server.js';

/**
 * A SOCKS5 CONNECT: the same checked open as a CONNECT tunnel, then bytes only. A refusal is
 * recorded on the lease by open(), where the engine reads it; the SOCKS reply carries only a code.
 */
export async function handleSocksConnect(core: GuardCore, lease: LeaseRecord, host: string, port: number, client: Socket, reply: (code: number) => void): Promise<void> {
  const use = lease.use;
  const abort = new AbortController();
  client.once('close', () => abort.abort());
  let target: URL;
  try {
    target = new URL(`http://${host.includes(':') ? `[${host}]` : host}:${port}/`);
  } catch {
    lease.recordFailure(new ServiceError('ERR::SECURITY::INVALID_URL', `${host} is not a valid host name`));
    return reply(SocksReply.notAllowed);
  }
  let upstream: Socket;
  try {
    upstream = await core.open(lease, target, abort.signal);
  } catch (caught) {
    return reply(socksReplyFor(asServiceError(caught)));
  }
  if (client.destroyed) {
    upstream.destroy();
    return;
  }
  watchReset(lease, use, upstream, `${host}:${port}`);
  reply(SocksReply.granted);
  pipeBoth(client, upstream);
}
