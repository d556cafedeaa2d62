import type { Socket } from 'node:net';
import { Agent } from 'undici';
import { ServiceError } from '../../lib/errors/index.js';

/** Idle connections are closed after this, before a typical server's keep-alive timeout (5 s). */
const IDLE_MS = 4_000;

/**
 * An undici agent for one reusable guard lease that speaks to plain-HTTP targets from this process
 * (docs/ssrf.md, "In-process connections"): each new connection is the lease's `open`, the guard's
 * checked dial, so every address is checked at connect time; a kept connection goes back only to
 * the origin it was opened for.
 */
export function directAgent(open: (target: URL) => Promise<Socket>): Agent {
  return new Agent({
    keepAliveTimeout: IDLE_MS,
    keepAliveMaxTimeout: IDLE_MS,
    connect: (options, callback) => {
      if (options.protocol !== 'http:') {
        callback(new ServiceError('ERR::INTERNAL::ERROR', `in-process connections are for plain HTTP, not ${options.protocol}`), null);
        return;
      }
      const host = options.hostname.includes(':') ? `[${options.hostname}]` : options.hostname;
      open(new URL(`http://${host}:${options.port || 80}/`)).then(
        (socket) => callback(null, socket),
        (error: Error) => callback(error, null),
      );
    },
  });
}
