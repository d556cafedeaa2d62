/**
 * Fetch-tier overhead (issue 11 goal 1): the same local page fetched directly and through POST
 * /v1/scrape, in the embedded default (`trawler all`: PGlite, in-process bus, one process of its own),
 * in distributed mode (PostgreSQL + NATS, gateway and fetch worker processes), and `in-process` (the
 * embedded service inside this benchmark's process, sharing its event loop with the client and the
 * target site). Each mode's direct and through-API figures come from the same run. BENCH_MODES picks
 * the modes. BENCH_BASELINE=<checkout> (built, `npx tsc -p tsconfig.json` there): in the embedded and
 * distributed modes, that checkout's service runs beside this one's; both are warmed up alike, then
 * BENCH_ROUNDS rounds (default 3) measure direct, before and after, the side that goes first alternating
 * round by round, with each service's CPU per scrape (before and after a change, from one run).
 * Prints figures; not a test.
 */
import { startEmbedded } from '../test/support/embedded.js';
import { startTargetSite } from '../test/support/target-site.js';
import { startDistributed, startEmbeddedProcess, type ServiceProcesses } from './distributed.js';
import { fetchTierRequests } from './fetch-tier-requests.js';
import { startArchitectureFloor } from './floor/start-floor.js';
import { processesCpuMicros } from './proc-cpu.js';
import { serviceEntry } from './service-entry.js';
import { CONCURRENCY, figures, latencies, median, SEQUENTIAL, THROUGHPUT_SECONDS, throughput, type Figures } from './request-figures.js';

/** A throughput run of each side before anything is measured (BENCH_WARMUP=0 skips it): see compare(). */
const WARMUP = process.env.BENCH_WARMUP !== '0';
const MODES = (process.env.BENCH_MODES ?? 'embedded,distributed,floor,in-process').split(',');

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

type Comparison = { direct: Figures; viaApi: Figures };

function print(mode: string, { direct, viaApi }: Comparison): void {
  const row = (name: string, f: Figures) =>
    `  ${name.padEnd(20)} p50 ${f.p50.toFixed(2).padStart(7)} ms   p95 ${f.p95.toFixed(2).padStart(7)} ms   ${f.rps.toFixed(0).padStart(6)} req/s at c=${CONCURRENCY}`;
  console.log(`${mode}:`);
  console.log(row('direct to the page', direct));
  console.log(row('through /v1/scrape', viaApi));
  const added = viaApi.p50 - direct.p50;
  const ratio = viaApi.rps / direct.rps;
  console.log(`  added p50 ${added.toFixed(2)} ms (target <= 2), throughput ${ratio.toFixed(3)}x direct (target >= 0.2)`);
}

const DISTRIBUTED = 'distributed (PostgreSQL + NATS, gateway and fetch worker processes)';
const FLOOR = 'architecture floor (the same hops with no Trawler code: bench/floor/)';

/**
 * Distributed mode next to the floor measured in the same run: what Trawler's own code adds to the
 * bare hops, and whether the floor itself meets the targets on this machine now (when it does not,
 * no code on those hops can).
 */
function printAgainstFloor(measured: Map<string, Comparison>): void {
  const service = measured.get(DISTRIBUTED);
  const floor = measured.get(FLOOR);
  if (!service || !floor) return;
  const added = service.viaApi.p50 - service.direct.p50 - (floor.viaApi.p50 - floor.direct.p50);
  const verdict = (met: boolean) => (met ? 'meets' : 'misses');
  const floorLatency = verdict(floor.viaApi.p50 - floor.direct.p50 <= 2);
  const floorThroughput = verdict(floor.viaApi.rps / floor.direct.rps >= 0.2);
  console.log('distributed against the floor, this run:');
  console.log(`  added p50 ${added.toFixed(2)} ms over the floor's, throughput ${(service.viaApi.rps / floor.viaApi.rps).toFixed(3)}x the floor's`);
  console.log(`  the floor itself ${floorLatency} the latency target and ${floorThroughput} the throughput target on this machine now`);
}

const BASELINE = process.env.BENCH_BASELINE ?? null;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/**
 * BENCH_BASELINE: before (the baseline checkout's service) and after (this one's), warmed up alike,
 * then ROUNDS rounds of direct, before and after, the service measured first alternating by round.
 */
async function compareBeforeAfter(title: string, page: string, before: ServiceProcesses, after: ServiceProcesses): Promise<void> {
  const sides = (
    [
      ['before', before],
      ['after', after],
    ] as const
  ).map(([side, service]) => ({ side, service, viaApi: fetchTierRequests(page, service).viaApi }));
  const { direct } = fetchTierRequests(page, after);
  const row = (name: string, f: Figures, cpuMs: number | null, against: Figures | null) =>
    `    ${name.padEnd(8)} p50 ${f.p50.toFixed(2).padStart(6)} ms   p95 ${f.p95.toFixed(2).padStart(6)} ms   ${f.rps.toFixed(0).padStart(5)} req/s` +
    (cpuMs === null ? '' : `   service CPU ${cpuMs.toFixed(3)} ms/scrape`) +
    (against ? `   added p50 ${(f.p50 - against.p50).toFixed(2)} ms, ${(f.rps / against.rps).toFixed(3)}x direct` : '');
  console.log(`${title}:`);
  const kept = { before: [] as Array<Figures & { cpuMs: number }>, after: [] as Array<Figures & { cpuMs: number }> };
  try {
    await latencies(direct, 50);
    for (const { viaApi } of sides) await latencies(viaApi, 50);
    if (WARMUP) {
      await throughput(direct);
      for (const { viaApi } of sides) await throughput(viaApi);
    }
    for (let round = 1; round <= ROUNDS; round += 1) {
      console.log(`  round ${round} of ${ROUNDS}`);
      const directFigures = await figures(direct);
      console.log(row('direct', directFigures, null, null));
      for (const { side, service, viaApi } of round % 2 ? sides : [...sides].reverse()) {
        const cpuBefore = processesCpuMicros(service.pids);
        const f = await figures(viaApi);
        const cpuMs = (processesCpuMicros(service.pids) - cpuBefore) / 1000 / (SEQUENTIAL + f.rps * THROUGHPUT_SECONDS);
        kept[side].push({ ...f, cpuMs });
        console.log(row(side, f, cpuMs, directFigures));
      }
    }
    const summary = (side: 'before' | 'after') => {
      const runs = kept[side];
      return `p50 ${median(runs.map((f) => f.p50)).toFixed(2)} ms, ${median(runs.map((f) => f.rps)).toFixed(0)} req/s, service CPU ${median(runs.map((f) => f.cpuMs)).toFixed(3)} ms/scrape`;
    };
    console.log(`  medians: before ${summary('before')}; after ${summary('after')}`);
  } finally {
    await before.stop();
    await after.stop();
  }
}

async function main(): Promise<void> {
  const site = await startTargetSite();
  const page = `${site.origin}/static/article.html`;
  console.log(`fetch tier overhead, ${SEQUENTIAL} sequential requests, ${THROUGHPUT_SECONDS} s throughput runs at concurrency ${CONCURRENCY}`);
  if (BASELINE) {
    const entry = serviceEntry(BASELINE);
    if (MODES.includes('embedded')) {
      await compareBeforeAfter(`embedded (\`trawler all\`; before: ${BASELINE}, after: this checkout)`, page, await startEmbeddedProcess({}, entry), await startEmbeddedProcess());
    }
    if (MODES.includes('distributed')) {
      const before = await startDistributed({}, entry);
      const after = before && (await startDistributed());
      if (before && after) await compareBeforeAfter(`distributed (gateway and fetch worker processes; before: ${BASELINE}, after: this checkout)`, page, before, after);
      else console.log('distributed: skipped, PostgreSQL or NATS not reachable');
    }
    await site.close();
    return;
  }
  const measured = new Map<string, Comparison>();
  const measureProcesses = async (title: string, service: ServiceProcesses) => {
    try {
      const comparison = await compare(page, service);
      measured.set(title, comparison);
      print(title, comparison);
    } finally {
      await service.stop();
    }
  };
  if (MODES.includes('embedded')) await measureProcesses('embedded (`trawler all`: PGlite, in-process bus, one process)', await startEmbeddedProcess());
  if (MODES.includes('distributed')) {
    const service = await startDistributed();
    if (service === null) console.log('distributed: skipped, PostgreSQL or NATS not reachable');
    else await measureProcesses(DISTRIBUTED, service);
  }
  if (MODES.includes('floor')) {
    const floor = await startArchitectureFloor();
    if (floor === null) console.log('architecture floor: skipped, PostgreSQL or NATS not reachable');
    else await measureProcesses(FLOOR, floor);
  }
  printAgainstFloor(measured);
  if (MODES.includes('in-process')) {
    const service = await startEmbedded({ engines: ['fetch'], checkBusMessages: false });
    await service.db.query('UPDATE organizations SET rate_limit_per_second = 1000000, concurrency_limit = 10000');
    print('in-process (the embedded service inside this process, in-memory PGlite)', await compare(page, service));
    await service.stop();
  }
  await site.close();
}

await main();
