/**
 * Fetch-tier overhead (issue 11 goal 1): the same local page fetched directly and through POST
 * /v1/scrape, in the embedded default (`trawler all`: PGlite, in-process bus, one process of its own),
 * in distributed mode (PostgreSQL + NATS, gateway and fetch worker processes), and `in-process` (the
 * embedded service inside this benchmark's process, sharing its event loop with the client and the
 * target site). Each mode's direct and through-API figures come from the same run. BENCH_MODES picks
 * the modes. Prints figures; not a test.
 */
import { startEmbedded } from '../test/support/embedded.js';
import { startTargetSite } from '../test/support/target-site.js';
import { startDistributed, startEmbeddedProcess, type ServiceProcesses } from './distributed.js';
import { fetchTierRequests } from './fetch-tier-requests.js';
import { startArchitectureFloor } from './floor/start-floor.js';

const SEQUENTIAL = Number(process.env.BENCH_REQUESTS ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const THROUGHPUT_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** A throughput run of each side before anything is measured (BENCH_WARMUP=0 skips it): see compare(). */
const WARMUP = process.env.BENCH_WARMUP !== '0';
const MODES = (process.env.BENCH_MODES ?? 'embedded,distributed,floor,in-process').split(',');

interface Figures {
  p50: number;
  p95: number;
  rps: number;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function latencies(run: () => Promise<void>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const start = performance.now();
    await run();
    out.push(performance.now() - start);
  }
  return out;
}

async function throughput(run: () => Promise<void>): Promise<number> {
  const deadline = Date.now() + THROUGHPUT_SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        await run();
        done += 1;
      }
    }),
  );
  return done / THROUGHPUT_SECONDS;
}

async function figures(run: () => Promise<void>): Promise<Figures> {
  const ms = await latencies(run, SEQUENTIAL);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95), rps: await throughput(run) };
}

/**
 * Direct and through-API, warmed up alike, measured one after the other in this run. The warm-up runs
 * each side at concurrency as long as a throughput run: a service that has been up a while has its hot
 * code optimised and PGlite's WebAssembly tiered up, which 50 sequential requests do not reach.
 */
async function compare(page: string, api: { url: string; secret: string }): Promise<{ direct: Figures; viaApi: Figures }> {
  const { direct, viaApi } = fetchTierRequests(page, api);
  await latencies(viaApi, 50);
  await latencies(direct, 50);
  if (WARMUP) {
    await throughput(viaApi);
    await throughput(direct);
  }
  return { direct: await figures(direct), viaApi: await figures(viaApi) };
}

function print(mode: string, { direct, viaApi }: { direct: Figures; viaApi: Figures }): void {
  const row = (name: string, f: Figures) =>
    `  ${name.padEnd(20)} p50 ${f.p50.toFixed(2).padStart(7)} ms   p95 ${f.p95.toFixed(2).padStart(7)} ms   ${f.rps.toFixed(0).padStart(6)} req/s at c=${CONCURRENCY}`;
  console.log(`${mode}:`);
  console.log(row('direct to the page', direct));
  console.log(row('through /v1/scrape', viaApi));
  const added = viaApi.p50 - direct.p50;
  const ratio = viaApi.rps / direct.rps;
  console.log(`  added p50 ${added.toFixed(2)} ms (target <= 2), throughput ${ratio.toFixed(3)}x direct (target >= 0.2)`);
}

async function main(): Promise<void> {
  const site = await startTargetSite();
  const page = `${site.origin}/static/article.html`;
  console.log(`fetch tier overhead, ${SEQUENTIAL} sequential requests, ${THROUGHPUT_SECONDS} s throughput runs at concurrency ${CONCURRENCY}`);
  const measureProcesses = async (title: string, service: ServiceProcesses) => {
    try {
      print(title, await compare(page, service));
    } finally {
      await service.stop();
    }
  };
  if (MODES.includes('embedded')) await measureProcesses('embedded (`trawler all`: PGlite, in-process bus, one process)', await startEmbeddedProcess());
  if (MODES.includes('distributed')) {
    const service = await startDistributed();
    if (service === null) console.log('distributed: skipped, PostgreSQL or NATS not reachable');
    else await measureProcesses('distributed (PostgreSQL + NATS, gateway and fetch worker processes)', service);
  }
  if (MODES.includes('floor')) {
    const floor = await startArchitectureFloor();
    if (floor === null) console.log('architecture floor: skipped, PostgreSQL or NATS not reachable');
    else await measureProcesses('architecture floor (the same hops with no Trawler code: bench/floor/)', floor);
  }
  if (MODES.includes('in-process')) {
    const service = await startEmbedded({ engines: ['fetch'], checkBusMessages: false });
    await service.db.query('UPDATE organizations SET rate_limit_per_second = 1000000, concurrency_limit = 10000');
    print('in-process (the embedded service inside this process, in-memory PGlite)', await compare(page, service));
    await service.stop();
  }
  await site.close();
}

await main();
