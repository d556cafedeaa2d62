import http from 'node:http';
import type { Socket } from 'node:net';

/** Idle upstream connections are closed after this, before a typical server's keep-alive timeout (5 s). */
const UPSTREAM_IDLE_MS = 4_000;

type Open = (target: URL) => Promise<Socket>;
type OnCreate = (error: Error | null, socket?: Socket) => void;

/**
 * Keep-alive connections to plain-HTTP targets for one reusable lease (docs/ssrf.md, "Connection
 * reuse"). Every new connection is opened by `open`, the guard's checked dial, so each address is
 * checked at connect time; a kept connection goes back only to the host and port it was opened for.
 */
export function upstreamAgent(open: Open): http.Agent {
  const agent = new http.Agent({ keepAlive: true, timeout: UPSTREAM_IDLE_MS, scheduling: 'lifo' });
  // Node's Agent accepts a socket handed to the callback later, so the dial can be asynchronous.
  const create = (options: { host?: string | null; port?: number | string | null }, onCreate: OnCreate): undefined => {
    const host = options.host ?? '';
    const authority = host.includes(':') ? `[${host}]` : host;
    open(new URL(`http://${authority}:${options.port ?? 80}/`)).then(
      (socket) => onCreate(null, socket),
      (error: Error) => onCreate(error),
    );
    return undefined;
  };
  (agent as unknown as { createConnection: typeof create }).createConnection = create;
  return agent;
}
