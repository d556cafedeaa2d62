/**
 * CPU per request of the fetch tier (issue 11 goal 1), which bounds throughput at concurrency on a
 * loaded 2-core machine better than wall time does: the same local page fetched directly and through
 * POST /v1/scrape, CPU summed over this process (and, distributed, the gateway and worker processes
 * apart, and the PostgreSQL backends serving the benchmark's database; NATS's server is not counted).
 * BENCH_MODES=embedded|distributed|floor|in-process (as in bench/gateway-bench.ts), BENCH_REQUESTS (default 2000),
 * BENCH_WARMUP_REQUESTS (default 3000), BENCH_CONCURRENCY (default 8).
 * BENCH_PROFILE=file.cpuprofile profiles this process's main thread over the measured API requests
 * (in-process mode; BENCH_CHILD_PROFILE_DIR profiles the service's processes in the other modes).
 * Prints figures; not a test.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import pg from 'pg';
import { startEmbedded } from '../test/support/embedded.js';
import { startTargetSite } from '../test/support/target-site.js';
import { startDistributed, startEmbeddedProcess, type ServiceProcesses } from './distributed.js';
import { fetchTierRequests } from './fetch-tier-requests.js';
import { startArchitectureFloor } from './floor/start-floor.js';
import { procCpuMicros } from './proc-cpu.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
/** Requests at the measured concurrency before measuring: enough for V8 and PGlite's WebAssembly to finish optimising the hot code. */
const WARMUP_REQUESTS = Number(process.env.BENCH_WARMUP_REQUESTS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const MODES = (process.env.BENCH_MODES ?? 'embedded').split(',');
/** `api` alone when profiling the API side. */
const SIDES = (process.env.BENCH_SIDES ?? 'direct,api').split(',');
/** CPU microseconds used so far by the given processes (a backend that closed meanwhile counts 0). */
function processMicros(pids: number[]): number {
  return pids.reduce((total, pid) => total + (procCpuMicros(`/proc/${pid}/stat`) ?? 0), 0);
}

/**
 * CPU microseconds so far: this process (the client), each of the service's processes (distributed:
 * the gateway, then the worker), the database backends.
 */
function cpuMicros(groups: ProcessGroups): number[] {
  const own = process.cpuUsage();
  const service = groups.service.length > 1 ? groups.service.map((pid) => processMicros([pid])) : [processMicros(groups.service)];
  return [own.user + own.system, ...service, processMicros(groups.database)];
}

interface ProcessGroups {
  service: number[];
  database: number[];
}

async function measure(name: string, run: () => Promise<void>, processes: () => Promise<ProcessGroups>): Promise<void> {
  if (!SIDES.includes(name.startsWith('direct') ? 'direct' : 'api')) return;
  let next = 0;
  let until = 0;
  const worker = async () => {
    while (next < until) {
      next += 1;
      await run();
    }
  };
  // Warmed up at the measured concurrency, so the pools have opened their connections and the code is optimised.
  until = WARMUP_REQUESTS;
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const groups = await processes();
  until = REQUESTS;
  const profiler = process.env.BENCH_PROFILE && name.startsWith('through') ? new Session() : null;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  const cpuStart = cpuMicros(groups);
  const start = performance.now();
  next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const wall = performance.now() - start;
  const split = cpuMicros(groups).map((micros, i) => (micros - cpuStart[i]) / REQUESTS);
  const cpu = split.reduce((sum, micros) => sum + micros, 0);
  if (profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(process.env.BENCH_PROFILE!, JSON.stringify(profile));
    profiler.disconnect();
  }
  const parts = split.map((micros) => (micros / 1000).toFixed(3)).join(' / ');
  const service = groups.service.length > 1 ? 'gateway / worker' : 'service';
  console.log(`  ${name.padEnd(20)} ${(cpu / 1000).toFixed(3)} ms CPU per request (client / ${service} / database ${parts}), ${((REQUESTS / wall) * 1000).toFixed(0)} req/s at c=${CONCURRENCY}`);
}

/** The PostgreSQL backends connected to the benchmark's database (after warm-up, the pools are full). */
async function backendPids(databaseUrl: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    return result.rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const site = await startTargetSite();
  const page = `${site.origin}/static/article.html`;
  const measureProcesses = async (title: string, service: ServiceProcesses) => {
    const { direct, viaApi } = fetchTierRequests(page, service);
    const databasePids = async () => (service.databaseUrl ? backendPids(service.databaseUrl) : []);
    console.log(title);
    await measure('direct to the page', direct, async () => ({ service: service.pids, database: [] }));
    await measure('through /v1/scrape', viaApi, async () => ({ service: service.pids, database: await databasePids() }));
    await service.stop();
  };
  if (MODES.includes('embedded')) await measureProcesses('embedded (this process + `trawler all`):', await startEmbeddedProcess());
  if (MODES.includes('distributed')) {
    const service = await startDistributed();
    if (service) await measureProcesses('distributed (this process + gateway + worker + PostgreSQL backends):', service);
  }
  if (MODES.includes('floor')) {
    const floor = await startArchitectureFloor();
    if (floor) await measureProcesses('architecture floor (this process + bench/floor/ gateway + worker + PostgreSQL backends):', floor);
  }
  if (MODES.includes('in-process')) {
    const service = await startEmbedded({ engines: ['fetch'], checkBusMessages: false });
    await service.db.query('UPDATE organizations SET rate_limit_per_second = 1000000, concurrency_limit = 10000');
    const { direct, viaApi } = fetchTierRequests(page, service);
    console.log('in-process (the embedded service inside this process):');
    await measure('direct to the page', direct, async () => ({ service: [], database: [] }));
    await measure('through /v1/scrape', viaApi, async () => ({ service: [], database: [] }));
    await service.stop();
  }
  await site.close();
}

await main();
