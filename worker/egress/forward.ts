import http from 'node:http';
import type { Socket } from 'node:net';
import { ServiceError } from '../../lib/errors/index.js';
import { bareHost } from '../../lib/egress/policy.js';
import type { GuardCore } from './guard-core.js';
import { asServiceError, EGRESS_ERROR_HEADER, filterRawHeaders, refusalStatus } from './relay.js';

/**
 * A plain-HTTP request forwarded by the guard's HTTP listener (`GET http://host/path`): a reusable
 * lease's keep-alive agent, or one checked connection for this request.
 */
export async function handleForward(core: GuardCore, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const lease = core.authenticate(req);
  if (!lease) {
    res.writeHead(407, { 'proxy-authenticate': 'Basic realm="trawler-egress"', 'content-length': '0' }).end();
    return;
  }
  const refuse = (error: ServiceError): void => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(refusalStatus(error), { [EGRESS_ERROR_HEADER]: error.code, 'content-length': '0', connection: 'close' }).end();
  };
  if (!(req.url ?? '').startsWith('http://')) {
    res.writeHead(400, { 'content-length': '0' }).end();
    return;
  }
  const abort = new AbortController();
  res.once('close', () => abort.abort());
  const target = new URL(req.url ?? '');
  let connection: Pick<http.RequestOptions, 'agent' | 'createConnection' | 'host' | 'port'>;
  if (lease.reusable) {
    connection = { agent: core.agentOf(lease), host: bareHost(target), port: Number(target.port) || 80 };
  } else {
    let socket: Socket;
    try {
      socket = await core.open(lease, target, abort.signal);
    } catch (caught) {
      refuse(asServiceError(caught));
      return;
    }
    connection = { createConnection: () => socket };
  }
  const upstreamRequest = http.request({
    ...connection,
    method: req.method,
    path: `${target.pathname}${target.search}`,
    headers: filterRawHeaders(req.rawHeaders),
  });
  upstreamRequest.on('response', (upstreamResponse) => {
    res.writeHead(upstreamResponse.statusCode ?? 502, filterRawHeaders(upstreamResponse.rawHeaders));
    upstreamResponse.pipe(res);
    upstreamResponse.on('error', () => res.destroy());
  });
  upstreamRequest.on('error', (error: NodeJS.ErrnoException) => {
    if (abort.signal.aborted) return;
    // A refused dial of a kept-alive agent: open() has recorded it on the lease already.
    if (error instanceof ServiceError) return refuse(error);
    const reset = new ServiceError('ERR::UPSTREAM::CONNECTION_RESET', `${target.host} closed the connection (${error.code ?? error.message})`);
    lease.recordFailure(reset);
    refuse(reset);
  });
  res.once('close', () => {
    if (!res.writableFinished) upstreamRequest.destroy();
  });
  req.pipe(upstreamRequest);
}
