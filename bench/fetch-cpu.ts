/**
 * CPU per request of the fetch tier (issue 11 goal 1), which bounds throughput at concurrency on a
 * loaded 2-core machine better than wall time does: the same local page fetched directly and through
 * POST /v1/scrape, CPU summed over this process (and, distributed, the gateway and worker processes
 * apart, and the PostgreSQL backends serving the benchmark's database; NATS's server is not counted).
 * BENCH_MODES=embedded|distributed|floor|in-process (as in bench/gateway-bench.ts), BENCH_REQUESTS (default 2000),
 * BENCH_WARMUP_REQUESTS (default 3000), BENCH_CONCURRENCY (default 8).
 * BENCH_PROFILE=file.cpuprofile profiles this process's main thread over the measured API requests
 * (in-process mode; BENCH_CHILD_PROFILE_DIR profiles the service's processes in the other modes).
 * BENCH_BASELINE=<checkout> (built, `npx tsc -p tsconfig.json` there): in the embedded and distributed
 * modes, that checkout's service runs beside this one's; both are warmed up, then BENCH_ROUNDS rounds
 * (default 3) measure through /v1/scrape on each, the side that goes first alternating round by round,
 * so a change of load on the shared machine weighs on both (before and after a change, from one run).
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
import { processesCpuMicros } from './proc-cpu.js';
import { median } from './request-figures.js';
import { serviceEntry } from './service-entry.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
/** Requests at the measured concurrency before measuring: enough for V8 and PGlite's WebAssembly to finish optimising the hot code. */
const WARMUP_REQUESTS = Number(process.env.BENCH_WARMUP_REQUESTS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const MODES = (process.env.BENCH_MODES ?? 'embedded').split(',');
/** `api` alone when profiling the API side. */
const SIDES = (process.env.BENCH_SIDES ?? 'direct,api').split(',');
const BASELINE = process.env.BENCH_BASELINE ?? null;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/**
 * CPU microseconds so far: this process (the client), each of the service's processes (distributed:
 * the gateway, then the worker), the database backends.
 */
function cpuMicros(groups: ProcessGroups): number[] {
  const own = process.cpuUsage();
  const service = groups.service.length > 1 ? groups.service.map((pid) => processesCpuMicros([pid])) : [processesCpuMicros(groups.service)];
  return [own.user + own.system, ...service, processesCpuMicros(groups.database)];
}

interface ProcessGroups {
  service: number[];
  database: number[];
}

/** CPU milliseconds per request, in all and without the client's (null when BENCH_SIDES leaves this side out); `warmup` requests first. */
async function measure(name: string, run: () => Promise<void>, processes: () => Promise<ProcessGroups>, warmup = WARMUP_REQUESTS): Promise<{ all: number; service: number } | null> {
  if (!SIDES.includes(name.startsWith('direct') ? 'direct' : 'api')) return null;
  let next = 0;
  let until = 0;
  const worker = async () => {
    while (next < until) {
      next += 1;
      await run();
    }
  };
  // Warmed up at the measured concurrency, so the pools have opened their connections and the code is optimised.
  until = warmup;
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
  return { all: cpu / 1000, service: (cpu - split[0]) / 1000 };
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

/**
 * BENCH_BASELINE: the baseline checkout's service (before) and this one's (after), both warmed up, then
 * ROUNDS rounds through /v1/scrape, the side measured first alternating round by round.
 */
async function measureBeforeAfter(title: string, page: string, before: ServiceProcesses, after: ServiceProcesses): Promise<void> {
  const sides = (
    [
      ['before', before],
      ['after', after],
    ] as const
  ).map(([side, service]) => ({
    side,
    service,
    viaApi: fetchTierRequests(page, service).viaApi,
    processes: async () => ({ service: service.pids, database: service.databaseUrl ? await backendPids(service.databaseUrl) : [] }),
  }));
  console.log(title);
  try {
    const { direct } = fetchTierRequests(page, after);
    await measure('direct to the page', direct, async () => ({ service: [], database: [] }));
    for (const { side, viaApi, processes } of sides) await measure(`warm-up ${side}`, viaApi, processes);
    const cpu = { before: [] as Array<{ all: number; service: number }>, after: [] as Array<{ all: number; service: number }> };
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const { side, viaApi, processes } of round % 2 ? sides : [...sides].reverse()) {
        const ms = await measure(`through ${side} r${round}`, viaApi, processes, 0);
        if (ms !== null) cpu[side].push(ms);
      }
    }
    for (const part of ['all', 'service'] as const) {
      if (cpu.before.length === 0) break;
      const [b, a] = [median(cpu.before.map((c) => c[part])), median(cpu.after.map((c) => c[part]))];
      const what = part === 'all' ? 'CPU per scrape, client included' : 'CPU per scrape, service and database';
      console.log(`  median ${what}: before ${b.toFixed(3)} ms, after ${a.toFixed(3)} ms (${(((a - b) / b) * 100).toFixed(1)}%)`);
    }
  } finally {
    await before.stop();
    await after.stop();
  }
}

async function main(): Promise<void> {
  const site = await startTargetSite();
  const page = `${site.origin}/static/article.html`;
  if (BASELINE) {
    const entry = serviceEntry(BASELINE);
    if (MODES.includes('embedded')) {
      await measureBeforeAfter(`embedded (\`trawler all\`; before: ${BASELINE}, after: this checkout):`, page, await startEmbeddedProcess({}, entry), await startEmbeddedProcess());
    }
    if (MODES.includes('distributed')) {
      const before = await startDistributed({}, entry);
      const after = before && (await startDistributed());
      if (before && after) await measureBeforeAfter(`distributed (gateway + worker + PostgreSQL backends; before: ${BASELINE}, after: this checkout):`, page, before, after);
      else console.log('distributed: skipped, PostgreSQL or NATS not reachable');
    }
    await site.close();
    return;
  }
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
