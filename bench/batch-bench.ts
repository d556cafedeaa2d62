/**
 * Batch throughput (not a test): the same local pages crawled by a Trawler batch job (default dispatch
 * settings, job concurrency N) and by Crawlee's CheerioCrawler (maxConcurrency N), in one run, so the
 * ratio holds on a loaded machine. Trawler runs embedded as `trawler all` / `make run` runs it (PGlite
 * with its data directory on disk, here a fresh temporary one; in-process bus; in this process) and,
 * when PostgreSQL and NATS answer on loopback, distributed (gateway and fetch worker processes from
 * dist/: build first). Mode `embedded-memory` keeps PGlite in memory instead (what the tests run; not
 * what users run: no file system under the store).
 *
 *   npx tsx bench/batch-bench.ts [--pages 2000] [--concurrency 50] [--modes embedded,distributed,embedded-memory]
 *
 * CPU per item is printed for this process and its main thread (embedded: PGlite, the HTTP servers and
 * the batch code share that thread; the content pool and the fetch client's native threads are the rest)
 * and, distributed, for the gateway and the worker process: steadier than items/s on a shared machine.
 *
 * BENCH_PROFILE=file.cpuprofile profiles this process's main thread over the embedded Trawler job.
 * BENCH_SQL_STATS=file writes the embedded store's time per statement text (PGlite runs in this
 * process, one statement at a time): the steadiest figure on a shared machine. The embedded-memory
 * run writes both to `file.memory`.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { generateApiKey } from '../lib/apikeys.js';
import { newId } from '../lib/ids.js';
import { startEmbedded } from '../test/support/embedded.js';
import { byMessage, startProgram, type Program } from '../test/support/programs.js';
import { NATS_URL, createTestDatabase, distributedServicesAvailable } from '../test/support/services.js';
import { startTargetSite } from '../test/support/target-site.js';
import { procCpuMicros } from './proc-cpu.js';
import { withCrawlee } from './crawlee-run.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '50' },
    modes: { type: 'string', default: 'embedded,distributed' },
    rounds: { type: 'string', default: '2' },
  },
});
const PAGES = Number(values.pages);
const CONCURRENCY = Number(values.concurrency);
const MODES = values.modes.split(',');
/**
 * Each side crawls the pages this many times in a row in one process: round 1 right after start-up
 * (V8 still compiling the hot code, PGlite still tiering up its WebAssembly, worker threads loading),
 * the later rounds warm, as a service that has been running is. Both rounds are printed.
 */
const ROUNDS = Number(values.rounds);

/** Room for the whole batch and for polling its state; dispatch settings stay at their defaults. */
const BENCH_ACCOUNT = { DEFAULT_MONTHLY_CREDITS: '100000000', DEFAULT_RATE_LIMIT_PER_SECOND: '1000' };

interface Api {
  url: string;
  secret: string;
}

const call = async (api: Api, path: string, body?: unknown): Promise<Record<string, unknown>> => {
  const response = await fetch(`${api.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${api.secret}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
};

/** Time inside PGlite per statement text; attributed by the last Parse (or simple Query) message. */
const sqlStats = new Map<string, { executions: number; ms: number }>();
let counting = false;
function countStatements(): void {
  if (counting) return;
  counting = true;
  const prototype = PGlite.prototype as unknown as { execProtocolRawSync(message: Uint8Array): unknown };
  const original = prototype.execProtocolRawSync;
  const decoder = new TextDecoder();
  let current = '?';
  // A named statement (lib/store/pglite-prepared.ts) runs as `EXECUTE name('literal', ...)`: counted by its name.
  const textAt = (message: Uint8Array, from: number) =>
    decoder.decode(message.subarray(from, message.indexOf(0, from))).replace(/\s+/g, ' ').replace(/^(EXECUTE \w+).*/, '$1').slice(0, 100);
  prototype.execProtocolRawSync = function (this: unknown, message: Uint8Array) {
    if (message[0] === 0x50) current = textAt(message, message.indexOf(0, 5) + 1); // Parse: name, then text
    if (message[0] === 0x51) current = textAt(message, 5); // simple Query
    const began = performance.now();
    const result = original.call(this, message);
    const entry = sqlStats.get(current) ?? { executions: 0, ms: 0 };
    entry.ms += performance.now() - began;
    if (message[0] === 0x45 || message[0] === 0x51) entry.executions += 1; // Execute or Query
    sqlStats.set(current, entry);
    return result;
  };
}

function writeStatementStats(file: string, items: number): void {
  const rows = [...sqlStats.entries()].sort((a, b) => b[1].ms - a[1].ms);
  const ms = rows.reduce((sum, [, entry]) => sum + entry.ms, 0);
  const executions = rows.reduce((sum, [, entry]) => sum + entry.executions, 0);
  const lines = rows.map(([text, entry]) => `${entry.ms.toFixed(0).padStart(7)} ms ${String(entry.executions).padStart(6)}x  ${text}`);
  writeFileSync(file, `${(ms / items).toFixed(3)} ms and ${(executions / items).toFixed(2)} statements per item in PGlite\n${lines.join('\n')}\n`);
  sqlStats.clear();
}

/**
 * CPU ms of a process or thread from Linux's /proc (null elsewhere): this process's main thread (which
 * PGlite, the HTTP servers and the batch code share), or a distributed run's gateway or worker process.
 */
function procCpuMs(statPath: string): number | null {
  const micros = procCpuMicros(statPath);
  return micros === null ? null : micros / 1000;
}

const mainThreadCpuMs = () => procCpuMs(`/proc/self/task/${process.pid}/stat`);
const programsCpuMs = (pids: number[]) => pids.map((pid) => procCpuMs(`/proc/${pid}/stat`));

/** Submission to terminal job, items per second; every item must have succeeded. */
interface Measured {
  perSecond: number;
  cpuMsPerItem: number;
  mainMsPerItem: number | null;
  /** Distributed: CPU ms per item of the gateway and of the worker process. */
  programsMsPerItem: Array<number | null>;
}

async function trawlerItemsPerSecond(api: Api, urls: string[], mode: string, pids: number[]): Promise<Measured> {
  // Files of the embedded-memory mode get that suffix, so a run of both embedded modes keeps both.
  const fileOf = (name: string | undefined) => (name && mode === 'embedded-memory' ? `${name}.memory` : name);
  const profileTo = mode.startsWith('embedded') ? fileOf(process.env.BENCH_PROFILE) : undefined;
  const sqlStatsTo = mode.startsWith('embedded') ? fileOf(process.env.BENCH_SQL_STATS) : undefined;
  const profiler = profileTo ? new Session() : null;
  if (sqlStatsTo) countStatements();
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  sqlStats.clear();
  const began = performance.now();
  const cpuBefore = process.cpuUsage();
  const mainBefore = mainThreadCpuMs();
  const programsBefore = programsCpuMs(pids);
  const job = await call(api, '/v1/batch', { urls, concurrency: CONCURRENCY, cache: false });
  for (;;) {
    const state = await call(api, `/v1/batch/${String(job.id)}`);
    if (['completed', 'failed', 'cancelled'].includes(state.status as string)) {
      const seconds = (performance.now() - began) / 1000;
      const counts = state.counts ?? state;
      if (state.status !== 'completed') throw new Error(`batch job ended ${String(state.status)}: ${JSON.stringify(counts)}`);
      if (profiler) {
        const { profile } = await profiler.post('Profiler.stop');
        writeFileSync(profileTo!, JSON.stringify(profile));
        profiler.disconnect();
      }
      const cpu = process.cpuUsage(cpuBefore);
      const mainAfter = mainThreadCpuMs();
      const programsMsPerItem = programsCpuMs(pids).map((after, i) => (after === null || programsBefore[i] === null ? null : (after - programsBefore[i]!) / urls.length));
      if (sqlStatsTo) writeStatementStats(sqlStatsTo, urls.length);
      const mainMsPerItem = mainBefore === null || mainAfter === null ? null : (mainAfter - mainBefore) / urls.length;
      return { perSecond: urls.length / seconds, cpuMsPerItem: (cpu.user + cpu.system) / 1000 / urls.length, mainMsPerItem, programsMsPerItem };
    }
    // A job's progress counts its items: polled like a client would, not so often that it is the load.
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Crawlee's items/s in each round, a new crawler each round in this process. */
async function crawleeItemsPerSecond(urls: string[], rounds: number): Promise<number[]> {
  const perSecond: number[] = [];
  for (let round = 1; round <= rounds; round += 1) perSecond.push(await crawleeRound(urls));
  return perSecond;
}

async function crawleeRound(urls: string[]): Promise<number> {
  return withCrawlee(async ({ CheerioCrawler }, config) => {
    let handled = 0;
    const crawler = new CheerioCrawler(
      {
        maxConcurrency: CONCURRENCY,
        maxRequestRetries: 0,
        requestHandler: async ({ $ }) => {
          if ($('title').text().length >= 0) handled += 1;
        },
      },
      config,
    );
    const began = performance.now();
    await crawler.run(urls);
    const seconds = (performance.now() - began) / 1000;
    if (handled !== urls.length) throw new Error(`crawlee handled ${handled} of ${urls.length}`);
    return urls.length / seconds;
  });
}

/** The embedded service in this process; PGlite in a fresh data directory on disk unless `inMemory`. */
async function withEmbedded<T>(inMemory: boolean, run: (api: Api, pids: number[]) => Promise<T>): Promise<T> {
  const dataDir = inMemory ? undefined : mkdtempSync(join(tmpdir(), 'trawler-bench-data-'));
  try {
    const service = await startEmbedded({ engines: ['fetch'], env: BENCH_ACCOUNT, checkBusMessages: false, dataDir });
    try {
      await waitForWorker({ url: service.url, secret: service.secret });
      return await run({ url: service.url, secret: service.secret }, []);
    } finally {
      await service.stop();
    }
  } finally {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

async function waitForWorker(api: Api): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    const body = await call(api, '/v1/workers');
    if (((body.workers as unknown[] | undefined) ?? []).length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('no worker became live');
}

/** A gateway process and a fetch worker process on a fresh PostgreSQL database and NATS namespace. */
async function withDistributed<T>(run: (api: Api, pids: number[]) => Promise<T>): Promise<T> {
  const database = await createTestDatabase();
  const secret = generateApiKey('live');
  const env = {
    NATS_URL,
    NATS_NAMESPACE: `b${newId().toLowerCase()}`,
    DATABASE_URL: database.url,
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
    TRAWLER_ALLOW_LOOPBACK_TARGETS: 'true',
    TRAWLER_BOOTSTRAP_KEY: secret,
    ...BENCH_ACCOUNT,
  };
  const programs: Program[] = [];
  try {
    const gateway = startProgram(['gateway'], { ...env, LOG_LEVEL: 'info' });
    programs.push(gateway);
    const listening = await gateway.waitForLog(byMessage('gateway listening'));
    programs.push(startProgram(['worker', '--engine', 'fetch'], env));
    const api = { url: String(listening.url), secret };
    await waitForWorker(api);
    return await run(api, programs.map((program) => program.process.pid ?? -1));
  } finally {
    for (const program of programs) program.kill('SIGTERM');
    await Promise.all(programs.map((program) => program.exited));
    await database.drop();
  }
}

async function main(): Promise<void> {
  const site = await startTargetSite();
  const urls = Array.from({ length: PAGES }, (_, i) => `${site.origin}/static/article.html?page=${i}`);
  const rows: Array<{ mode: string; round: number; trawler: number; crawlee: number; measured: Measured }> = [];
  try {
    for (const mode of MODES) {
      if (mode === 'distributed' && !(await distributedServicesAvailable())) {
        console.log('distributed: PostgreSQL or NATS not reachable on loopback, skipped');
        continue;
      }
      const embedded = mode.startsWith('embedded');
      const measure = async (api: Api, pids: number[]) => {
        const rounds: Measured[] = [];
        for (let round = 1; round <= ROUNDS; round += 1) rounds.push(await trawlerItemsPerSecond(api, urls, mode, pids));
        return rounds;
      };
      const measured = await (embedded ? withEmbedded(mode === 'embedded-memory', measure) : withDistributed(measure));
      const crawlee = await crawleeItemsPerSecond(urls, ROUNDS);
      measured.forEach((round, i) => rows.push({ mode, round: i + 1, trawler: round.perSecond, crawlee: crawlee[i], measured: round }));
    }
  } finally {
    await site.close();
  }
  console.log(`\nbatch of ${PAGES} local pages at concurrency ${CONCURRENCY}; Trawler with default dispatch settings\n`);
  console.table(
    rows.map((r) => ({
      mode: r.mode,
      round: r.round === 1 ? '1 (cold)' : String(r.round),
      'Trawler items/s': r.trawler.toFixed(1),
      'Crawlee CheerioCrawler items/s': r.crawlee.toFixed(1),
      'ratio (target >= 2)': (r.trawler / r.crawlee).toFixed(2),
      // Embedded: the whole service runs in this process; distributed: this process only polls.
      'this process CPU ms/item': r.measured.cpuMsPerItem.toFixed(2),
      'its main thread': r.measured.mainMsPerItem?.toFixed(2) ?? '-',
      'gateway / worker process': r.measured.programsMsPerItem.map((ms) => ms?.toFixed(2) ?? '-').join(' / ') || '-',
    })),
  );
}

await main();
