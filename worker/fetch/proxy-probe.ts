import http from 'node:http';
import { ServiceError } from '../../lib/errors/index.js';
import type { EgressLease } from '../egress/guard.js';

/**
 * proxy_verify: asks the guard to CONNECT to the target's host and port through the caller's proxy,
 * then closes the tunnel without sending anything. Proves the proxy is reachable, accepts the
 * credentials and can reach the target, before any fetch cost is spent.
 */
export function probeProxy(lease: EgressLease, target: URL, signal: AbortSignal): Promise<void> {
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  const authority = `${target.hostname}:${port}`;
  const credentials = Buffer.from(`${lease.username}:${lease.password}`).toString('base64');
  const guard = new URL(lease.server);
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: guard.hostname,
      port: Number(guard.port),
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, 'proxy-authorization': `Basic ${credentials}` },
      signal,
    });
    request.once('connect', (response, socket) => {
      socket.destroy();
      if (response.statusCode === 200) return resolve();
      reject(lease.failure() ?? new ServiceError('ERR::PROXY::UNREACHABLE', `Proxy check answered ${response.statusCode ?? 'nothing'}`));
    });
    request.once('error', (error) => {
      reject(lease.failure() ?? new ServiceError('ERR::PROXY::UNREACHABLE', `Proxy check failed: ${error.message}`));
    });
    request.end();
  });
}
