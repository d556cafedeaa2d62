import type http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { GuardCore } from './guard-core.js';
import { asServiceError, EGRESS_ERROR_HEADER, pipeBoth, refusalStatus, watchReset, writeRawRefusal } from './relay.js';

/**
 * A CONNECT tunnel (HTTPS, or any TCP a browser tunnels) or an HTTP Upgrade (WebSocket) through the
 * guard's HTTP listener: the destination is opened by the checked dial, then bytes only.
 */
export async function handleTunnel(core: GuardCore, req: http.IncomingMessage, client: Duplex, head: Buffer, kind: 'connect' | 'upgrade'): Promise<void> {
  client.on('error', () => client.destroy());
  const lease = core.authenticate(req);
  if (!lease) {
    writeRawRefusal(client, 407, 'Proxy Authentication Required', ['Proxy-Authenticate: Basic realm="trawler-egress"']);
    return;
  }
  const use = lease.use;
  const abort = new AbortController();
  client.once('close', () => abort.abort());
  let target: URL;
  try {
    target = new URL(kind === 'connect' ? `https://${req.url ?? ''}` : (req.url ?? ''));
    if (kind === 'connect' && target.port === '') target = new URL(`http://${req.url ?? ''}`);
  } catch {
    writeRawRefusal(client, 400, 'Bad Request');
    return;
  }
  let upstream: Socket;
  try {
    upstream = await core.open(lease, target, abort.signal);
  } catch (caught) {
    const error = asServiceError(caught);
    writeRawRefusal(client, refusalStatus(error), 'Egress Refused', [`${EGRESS_ERROR_HEADER}: ${error.code}`]);
    return;
  }
  if (client.destroyed) {
    upstream.destroy();
    return;
  }
  watchReset(lease, use, upstream, target.host);
  if (kind === 'connect') {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  } else {
    const lines = [`${req.method ?? 'GET'} ${target.pathname}${target.search} HTTP/1.1`];
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      if (!/^proxy-/i.test(raw[i])) lines.push(`${raw[i]}: ${raw[i + 1]}`);
    }
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
  }
  if (head.length > 0) upstream.write(head);
  pipeBoth(client, upstream);
}
