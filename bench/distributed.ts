/**
 * Distributed mode for benchmarks: `trawler gateway` and `trawler worker --engine fetch` as child
 * processes from this checkout's sources, on the real PostgreSQL and NATS (a database and a NATS
 * namespace of their own, as the tests use; test/support/services.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { newId } from '../lib/ids.js';
import { NATS_URL, createTestDatabase, distributedServicesAvailable } from '../test/support/services.js';

export interface DistributedService {
  url: string;
  secret: string;
  /** The gateway's and the worker's process ids (CPU accounting). */
  pids: number[];
  databaseUrl: string;
  stop(): Promise<void>;
}

const ENTRY = join(process.cwd(), 'bin/trawler.ts');

function startProcess(args: string[], env: Record<string, string>): { child: ChildProcess; line: (match: RegExp) => Promise<string> } {
  // BENCH_CHILD_PROFILE_DIR: each process writes a CPU profile there when it exits (bench/fetch-cpu.ts).
  const profile = process.env.BENCH_CHILD_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CHILD_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', ENTRY, ...args], {
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
      const timer = setTimeout(() => reject(new Error(`no ${match} from ${args.join(' ')} within 120 s:\n${seen.slice(-2000)}`)), 120_000);
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

/** Null when PostgreSQL or NATS is not reachable (the row is then skipped). */
export async function startDistributed(): Promise<DistributedService | null> {
  if (!(await distributedServicesAvailable())) return null;
  const database = await createTestDatabase();
  const env = {
    DATABASE_URL: database.url,
    NATS_URL,
    NATS_NAMESPACE: `b${newId().toLowerCase()}`,
    PORT: '0',
    METRICS_PORT: '0',
    TRAWLER_ALLOW_LOOPBACK_TARGETS: 'true',
  };
  const gateway = startProcess(['gateway'], env);
  const url = await gateway.line(/"url":"([^"]+)"[^\n]*"msg":"gateway listening"/);
  const secret = await gateway.line(/svc_live_[a-z2-7]{52}/);
  // Raised before the first request, so the gateway's key cache never holds the default limits.
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query('UPDATE organizations SET rate_limit_per_second = 1000000, concurrency_limit = 10000');
  await admin.end();
  const worker = startProcess(['worker', '--engine', 'fetch'], env);
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
      for (const child of [worker.child, gateway.child]) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await database.drop();
    },
  };
}
