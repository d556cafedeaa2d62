import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ENTRY = join(process.cwd(), 'dist/bin/trawler.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr holds text matching `pattern` (bounded; the CLI's own pace is not assumed). */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<void>;
  done: Promise<CliRun>;
}

/**
 * The compiled `trawler` command as a child process (asynchronous, so an embedded service in this
 * process keeps answering it). Only PATH and HOME are inherited: no stray TRAWLER_* settings.
 */
export function startCli(args: string[], env: Record<string, string> = {}, stdin?: string, cwd?: string): RunningCli {
  if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: build first (npx tsc -p tsconfig.json)`);
  const child = spawn(process.execPath, [ENTRY, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const watchers: Array<() => void> = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const watcher of [...watchers]) watcher();
  });
  if (stdin !== undefined) child.stdin!.end(stdin);
  else child.stdin!.end();
  const done = new Promise<CliRun>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    done,
    waitForStderr(pattern, timeoutMs = 30_000) {
      if (pattern.test(stderr)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`stderr never matched ${pattern}: ${stderr}`)), timeoutMs);
        const check = () => {
          if (!pattern.test(stderr)) return;
          clearTimeout(timer);
          watchers.splice(watchers.indexOf(check), 1);
          resolve();
        };
        watchers.push(check);
        void done.then(() => {
          clearTimeout(timer);
          if (!pattern.test(stderr)) reject(new Error(`CLI exited before stderr matched ${pattern}: ${stderr}`));
        });
      });
    },
  };
}

export function runCli(args: string[], env: Record<string, string> = {}, stdin?: string, cwd?: string): Promise<CliRun> {
  return startCli(args, env, stdin, cwd).done;
}

/**
 * The suites' service settings: a slower heartbeat, so a worker on this busy shared machine is not
 * dropped between beats (which the CLI would rightly report as ERR::ENGINE::UNAVAILABLE).
 */
export const CLI_SERVICE_ENV = { HEARTBEAT_INTERVAL_MS: '2000', DEFAULT_RATE_LIMIT_PER_SECOND: '1000' };

/** Waits until the gateway lists a fetch worker, so the first request finds the engine deployed. */
export async function fetchWorkerVisible(url: string, secret: string): Promise<void> {
  const { until } = await import('../support/poll.js');
  await until(
    async () => ((await (await fetch(`${url}/v1/workers`, { headers: { authorization: `Bearer ${secret}` } })).json()) as { engines: { fetch: { workers: number } } }).engines.fetch.workers,
    (workers) => workers > 0,
    30_000,
  );
}

/** Each CLI run is a fresh Node process (seconds on a busy shared machine); a test makes several. */
export const CLI_TEST_TIMEOUT_MS = 240_000;
