import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Ports tried after a taken one (9465, 9466, … for several workers), before any free port. */
const NEXT_PORTS_TRIED = 10;

/** Where a taken port moved a server to. */
export type PortMoved = (wanted: number, actual: number, reason: string) => void;

/**
 * Listens on `port` at `host`. With `onMoved`, a taken port never stops the process: the next ports
 * are tried, then any free one, and `onMoved` says where the server went. Without it (or with port
 * 0) the port is fixed and a taken one is an error.
 */
export async function listenMovable(server: Server, host: string, port: number, onMoved?: PortMoved): Promise<number> {
  const movable = onMoved !== undefined && port !== 0;
  const candidates = movable ? [...Array.from({ length: NEXT_PORTS_TRIED }, (_, i) => port + i).filter((p) => p <= 65535), 0] : [port];
  let lastError: unknown = null;
  for (const candidate of candidates) {
    try {
      await listen(server, host, candidate);
      const actual = (server.address() as AddressInfo).port;
      if (candidate !== port) onMoved?.(port, actual, describe(lastError));
      return actual;
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (error: Error) => reject(error);
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'EADDRINUSE' ? 'taken by another process' : String(code ?? error);
}
