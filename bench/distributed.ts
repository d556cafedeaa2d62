/**
 * The service as users run it, for benchmarks: the embedded default (`trawler all`, one process with
 * PGlite and the in-process bus) or distributed mode (`trawler gateway` and `trawler worker --engine
 * fetch` on the real PostgreSQL and NATS, a database and a NATS namespace of their own, as the tests
 * use; test/support/services.ts), as child processes from this checkout's sources, so the benchmark's
 * own client and target site do not share the service's event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId } from '../lib/ids.js';
import { serviceEntry } from './service-entry.js';
import { NATS_URL, createTestDatabase, distributedServicesAvailable } from '../test/support/services.js';

export interface ServiceProcesses {
  url: string;
  secret: string;
  /** The service's process ids (CPU accounting). */
  pids: number[];
  /** Distributed mode's database (its backends' CPU is counted too); null for the embedded store. */
  databaseUrl: string | null;
  stop(): Promise<void>;
}

/** Limits high enough that the benchmark measures the service, not its rate limiter. */
const UNLIMITED = { DEFAULT_RATE_LIMIT_PER_SECOND: '1000000', DEFAULT_CONCURRENCY_LIMIT: '10000' };

export async function stopAll(children: ChildProcess[]): Promise<void> {
  for (const child of children) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

/** `trawler all` with the fetch engine, its PGlite store in a fresh data directory, default settings otherwise (`settings` beside them); `entry`: another checkout's command. */
export async function startEmbeddedProcess(settings: Record<string, string> = {}, entry = serviceEntry()): Promise<ServiceProcesses> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawler-bench-'));
  const service = startProcess(['all'], { DATA_DIR: dataDir, PORT: '0', EMBEDDED_ENGINES: 'fetch', TRAWLER_ALLOW_LOOPBACK_TARGETS: 'true', ...UNLIMITED, ...settings }, entry);
  const url = await service.line(/"url":"([^"]+)"[^\n]*"msg":"gateway listening"/);
  const secret = await service.line(/svc_live_[a-z2-7]{52}/);
  return {
    url,
    secret,
    pids: [service.child.pid!],
    databaseUrl: null,
    async stop() {
      await stopAll([service.child]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A child process running `entry` (by default this checkout's `trawler` command, bench/service-entry.ts) with `args`; a `.ts` entry through tsx. */
export function startProcess(args: string[], env: Record<string, string>, entry = serviceEntry()): { child: ChildProcess; line: (match: RegExp) => Promise<string> } {
  // BENCH_CHILD_PROFILE_DIR: each process writes a CPU profile there when it exits (bench/fetch-cpu.ts).
  const profile = process.env.BENCH_CHILD_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CHILD_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, ...(entry.endsWith('.ts') ? ['--import', 'tsx'] : []), entry, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DASHBOARD_PORT: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let seen = '';
  const waiters: Array<() => void> = [];
  const collect = (chunk: Buffer) => {
    // Only the start-up lines are kept; the per-request log is read and dropped.
    if (seen.length < 200_000) seen += chunk.toString('utf8');
    for (const wake of [...waiters]) wake();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const line = (match: RegExp) =>
    new Promise<string>((resolve, reject) => {
      // BENCH_START_SECONDS: a loaded machine may take longer to start a service (under tsx above all).
      const seconds = Number(process.env.BENCH_START_SECONDS ?? 120);
      const timer = setTimeout(() => reject(new Error(`no ${match} from ${args.join(' ')} within ${seconds} s:\n${seen.slice(-2000)}`)), seconds * 1000);
      const check = () => {
        const found = match.exec(seen);
        if (!found) return;
        clearTimeout(timer);
        waiters.splice(waiters.indexOf(check), 1);
        resolve(found[1] ?? found[0]);
      };
      waiters.push(check);
      check();
    });
  return { child, line };
}

/** Null when PostgreSQL or NATS is not reachable (the row is then skipped); `entry`: another checkout's command. */
export async function startDistributed(settings: Record<string, string> = {}, entry = serviceEntry()): Promise<ServiceProcesses | null> {
  if (!(await distributedServicesAvailable())) return null;
  const database = await createTestDatabase();
  const env = {
    DATABASE_URL: database.url,
    NATS_URL,
    NATS_NAMESPACE: `b${newId().toLowerCase()}`,
    PORT: '0',
    METRICS_PORT: '0',
    TRAWLER_ALLOW_LOOPBACK_TARGETS: 'true',
    ...UNLIMITED,
    ...settings,
  };
  const gateway = startProcess(['gateway'], env, entry);
  const url = await gateway.line(/"url":"([^"]+)"[^\n]*"msg":"gateway listening"/);
  const secret = await gateway.line(/svc_live_[a-z2-7]{52}/);
  const worker = startProcess(['worker', '--engine', 'fetch'], env, entry);
  const headers = { authorization: `Bearer ${secret}` };
  for (let waited = 0; ; waited += 200) {
    const workers = (await (await fetch(`${url}/v1/workers`, { headers })).json()) as { workers?: unknown[] };
    if ((workers.workers?.length ?? 0) > 0) break;
    if (waited > 120_000) throw new Error('the fetch worker never joined');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    secret,
    pids: [gateway.child.pid!, worker.child.pid!],
    databaseUrl: database.url,
    async stop() {
      await stopAll([worker.child, gateway.child]);
      await database.drop();
    },
  };
}
