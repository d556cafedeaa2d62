import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ENTRY = join(process.cwd(), 'dist/bin/trawler.js');

export interface Program {
  process: ChildProcess;
  /** JSON log lines the program printed on stdout, parsed. */
  logs: Array<Record<string, unknown>>;
  stderr: string[];
  /** Resolves with the first log line matching, waiting up to `timeoutMs`. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): void;
}

/** Runs the compiled CLI (`npm run build` first) with the given arguments and environment. */
export function startProgram(args: string[], env: Record<string, string>): Program {
  if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run "make build" (the test command does) before the suite`);
  const child = spawn(process.execPath, [ENTRY, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'info', DASHBOARD_PORT: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  const stderr: string[] = [];
  const waiters: Array<{ match: (line: Record<string, unknown>) => boolean; resolve: (line: Record<string, unknown>) => void }> = [];
  let buffer = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        line = { unparsed: text };
      }
      logs.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.match(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    process: child,
    logs,
    stderr,
    exited,
    kill: (signal = 'SIGTERM') => void child.kill(signal),
    waitForLog(match, timeoutMs = 240_000) {
      const seen = logs.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching log line within ${timeoutMs} ms; stderr: ${stderr.join('')}`)), timeoutMs);
        waiters.push({ match, resolve: (line) => { clearTimeout(timer); resolve(line); } });
        void exited.then((code) => { clearTimeout(timer); reject(new Error(`program exited (${code}) before the log line; stderr: ${stderr.join('')}`)); });
      });
    },
  };
}

export const byMessage = (msg: string) => (line: Record<string, unknown>) => line.msg === msg;
