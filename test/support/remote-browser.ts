import { readdirSync, readFileSync } from 'node:fs';
import WebSocket from 'ws';

/** A raw WebSocket handshake on GET /v1/browser: the 101's headers (with its socket), or the refusal's status, headers and problem body. */
export interface Handshake {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  socket?: WebSocket;
}

export async function handshake(url: string, headers: Record<string, string> = {}): Promise<Handshake> {
  const socket = new WebSocket(url, { headers });
  return new Promise((resolve, reject) => {
    socket.once('upgrade', (res) => resolve({ status: 101, headers: res.headers, body: '', socket }));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    socket.once('error', reject);
  });
}

/** Processes whose command line carries the remote-browser marker of the worker `pid` (its Chromium, left by a SIGKILL). */
export function browsersOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(`trawler-remote-${pid}-`);
      } catch {
        return false;
      }
    })
    .map(Number);
}
