/**
 * Managed proxy pool benchmarks (docs/proxy-pools.md), both sides of each comparison from one run:
 * 1. Selection overhead: the same fetch scrape through the same local exit, once as the caller's own
 *    `proxy`, once chosen by the pool, interleaved in one run (target: at most 0.2 ms p50). Wall time
 *    on the shared machine swings by more than the target between runs, so each side is also measured
 *    in CPU time per request of this process (the embedded service, exit and target all run in it;
 *    getrusage counts every thread): blocks of BENCH_POOL_BLOCK requests alternate sides, and the
 *    median over neighbouring pairs of blocks of the difference in CPU per request is the figure
 *    (each pair shares the machine's state of its moment; other processes' load inflates it less).
 * 2. Rotation under failures: 1,000 requests over 10 exits, 3 of them failing (their provider answers
 *    429): how many requests each failing exit received before its cooldown, whether any reached a
 *    cooling exit, and how evenly the 7 others shared the rest (target: within 20% of even).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { startExitTarget, startStaticExit, type ExitServer } from '../test/support/pool-exits.js';
import { startPoolService } from '../test/support/pool-service.js';
import { ExitPool } from '../lib/proxy-pool/exit-pool.js';
import { parsePoolFile } from '../lib/proxy-pool/pool-file.js';
import { openStore } from '../lib/store/open.js';
import { createRegistry } from '../lib/metrics.js';
import type { ScrapeResult } from '../lib/protocol/index.js';
import type { ScrapeParams } from '../lib/scrape/params-schema.js';
import { createGatewayMetrics } from '../gateway/metrics.js';
import { chooseExit, exitRequestOf, jobExitOf, recordExitUse } from '../gateway/scrape/exit-route.js';

const OVERHEAD_ROUNDS = Number(process.env.BENCH_POOL_ROUNDS ?? 400);
const ROTATION_REQUESTS = 1000;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timed(work: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const response = await work();
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`scrape answered ${response.status}`);
  return performance.now() - started;
}

/** CPU microseconds (user + system, every thread) this process used for `n` sequential runs of `work`, per run. */
async function cpuPerRequest(n: number, work: () => Promise<Response>): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await timed(work);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

const OVERHEAD_BLOCKS = Number(process.env.BENCH_POOL_BLOCKS ?? 80);
/** Under `valgrind --tool=callgrind --instr-atstart=no`: count each block's instructions instead (see instructionsPerRequest). */
const CALLGRIND = process.env.BENCH_POOL_CALLGRIND === '1';
let dumps = 0;

/**
 * Instructions this process ran for `n` sequential runs of `work`, per run: callgrind counts
 * instructions, which the machine's load does not change; instrumentation is switched on for the
 * block only (`callgrind_control`), and the block's dump file is read back.
 */
async function instructionsPerRequest(n: number, work: () => Promise<Response>): Promise<number> {
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(process.pid)], { stdio: 'ignore' });
  control('--instr=on');
  control('--zero');
  for (let i = 0; i < n; i++) await timed(work);
  dumps += 1;
  control(`--dump=block-${dumps}`);
  control('--instr=off');
  const out = process.env.BENCH_POOL_CALLGRIND_OUT ?? `callgrind.out.${process.pid}`;
  const text = readFileSync(`${out}.${dumps}`, 'utf8');
  const summary = /^summary: (\d+)/m.exec(text);
  if (!summary) throw new Error(`no summary in ${out}.${dumps}`);
  return Number(summary[1]) / n;
}
const BLOCK = Number(process.env.BENCH_POOL_BLOCK ?? 25);

async function selectionOverhead(): Promise<void> {
  const target = await startExitTarget();
  const exit = await startStaticExit({ address: '127.0.0.1' });
  const service = await startPoolService([{ id: 'local', url: exit.url, tier: 'datacenter', country: 'DE' }], {
    checkBusMessages: false,
    env: { PROXY_HEALTH_REFRESH_MS: '1000', DEFAULT_RATE_LIMIT_PER_SECOND: '100000', DEFAULT_MONTHLY_CREDITS: '100000000', LOG_LEVEL: 'silent' },
  });
  const viaOwn = () => service.scrape({ url: target.url, proxy: exit.url });
  const viaPool = () => service.scrape({ url: target.url });
  try {
    const own: number[] = [];
    const pooled: number[] = [];
    for (let i = 0; i < Number(process.env.BENCH_POOL_WARMUP ?? 200); i++) {
      await timed(viaOwn);
      await timed(viaPool);
    }
    for (let i = 0; i < (CALLGRIND ? 0 : OVERHEAD_ROUNDS); i++) {
      // Alternate which side goes first, so drift in machine load falls on both.
      const first = i % 2 === 0;
      if (first) own.push(await timed(viaOwn));
      pooled.push(await timed(viaPool));
      if (!first) own.push(await timed(viaOwn));
    }
    const ownCpu: number[] = [];
    const poolCpu: number[] = [];
    // Each pair of neighbouring blocks shares the machine's state of the moment: their difference is the figure.
    const pairDiffs: number[] = [];
    for (let i = 0; i < OVERHEAD_BLOCKS; i++) {
      const measure = CALLGRIND ? instructionsPerRequest : cpuPerRequest;
      if (i % 2 === 0) ownCpu.push(await measure(BLOCK, viaOwn));
      poolCpu.push(await measure(BLOCK, viaPool));
      if (i % 2 === 1) ownCpu.push(await measure(BLOCK, viaOwn));
      pairDiffs.push(poolCpu[i] - ownCpu[i]);
    }
    if (CALLGRIND) {
      const diffs = pairDiffs.map((d) => d / 1000);
      console.log(`instructions per request (callgrind), ${OVERHEAD_BLOCKS} alternating blocks of ${BLOCK}:`);
      console.log(`  own proxy      median ${(percentile(ownCpu, 50) / 1000).toFixed(1)} k   (blocks ${ownCpu.map((v) => (v / 1000).toFixed(0)).join(' ')})`);
      console.log(`  pool selection median ${(percentile(poolCpu, 50) / 1000).toFixed(1)} k   (blocks ${poolCpu.map((v) => (v / 1000).toFixed(0)).join(' ')})`);
      console.log(`  difference, median of neighbouring pairs ${percentile(diffs, 50).toFixed(1)} k instructions per request (pairs ${diffs.map((d) => d.toFixed(0)).join(' ')})`);
      return;
    }
    const ownP50 = percentile(own, 50);
    const poolP50 = percentile(pooled, 50);
    const ownCpuP50 = percentile(ownCpu, 50);
    const poolCpuP50 = percentile(poolCpu, 50);
    console.log(`selection overhead, ${OVERHEAD_ROUNDS} scrapes each through the same local exit (fetch, embedded), interleaved:`);
    console.log(`  wall  own proxy      p50 ${ownP50.toFixed(3)} ms   p90 ${percentile(own, 90).toFixed(3)} ms`);
    console.log(`  wall  pool selection p50 ${poolP50.toFixed(3)} ms   p90 ${percentile(pooled, 90).toFixed(3)} ms`);
    console.log(`  wall  difference     p50 ${(poolP50 - ownP50).toFixed(3)} ms (target: at most 0.2 ms)`);
    console.log(`CPU per request, median of ${OVERHEAD_BLOCKS} alternating blocks of ${BLOCK} (this process, every thread):`);
    console.log(`  cpu   own proxy      ${(ownCpuP50 / 1000).toFixed(3)} ms   (blocks p10 ${(percentile(ownCpu, 10) / 1000).toFixed(3)}, p90 ${(percentile(ownCpu, 90) / 1000).toFixed(3)})`);
    console.log(`  cpu   pool selection ${(poolCpuP50 / 1000).toFixed(3)} ms   (blocks p10 ${(percentile(poolCpu, 10) / 1000).toFixed(3)}, p90 ${(percentile(poolCpu, 90) / 1000).toFixed(3)})`);
    console.log(`  cpu   difference of the medians ${((poolCpuP50 - ownCpuP50) / 1000).toFixed(3)} ms per request`);
    console.log(
      `  cpu   difference, median of ${OVERHEAD_BLOCKS} neighbouring pairs ${(percentile(pairDiffs, 50) / 1000).toFixed(3)} ms per request ` +
        `(pairs p25 ${(percentile(pairDiffs, 25) / 1000).toFixed(3)}, p75 ${(percentile(pairDiffs, 75) / 1000).toFixed(3)}; target: at most 0.2 ms)`,
    );
  } finally {
    await service.stop();
    await Promise.all([target.close(), exit.close()]);
  }
}

async function rotationUnderFailures(): Promise<void> {
  const target = await startExitTarget();
  const exits: ExitServer[] = [];
  for (let i = 0; i < 10; i++) exits.push(await startStaticExit({ address: `127.0.1.${i + 1}`, refuseWith: i < 3 ? 429 : undefined }));
  const service = await startPoolService(
    exits.map((exit, i) => ({ id: `exit-${i}`, url: exit.url, tier: 'residential', country: 'DE' })),
    { checkBusMessages: false, env: { PROXY_HEALTH_REFRESH_MS: '1000', DEFAULT_RATE_LIMIT_PER_SECOND: '100000', DEFAULT_MONTHLY_CREDITS: '100000000' } },
  );
  try {
    const started = performance.now();
    let ok = 0;
    for (let i = 0; i < ROTATION_REQUESTS; i++) {
      const response = await service.scrape({ url: target.url, premium_proxy: true });
      await response.arrayBuffer();
      if (response.status === 200) ok += 1;
    }
    const seconds = (performance.now() - started) / 1000;
    const failing = exits.slice(0, 3).map((exit) => exit.requests());
    const healthy = exits.slice(3).map((exit) => exit.requests());
    const mean = healthy.reduce((a, b) => a + b, 0) / healthy.length;
    const worst = Math.max(...healthy.map((n) => Math.abs(n - mean) / mean));
    const status = await service.gateway.context.exitPool?.status();
    console.log(`rotation: ${ROTATION_REQUESTS} premium requests over 10 exits, 3 failing (provider 429), ${seconds.toFixed(1)} s:`);
    console.log(`  answered 200: ${ok}`);
    console.log(`  requests each failing exit received: ${failing.join(', ')} (every one then cooling: ${status?.slice(0, 3).every((s) => s.state === 'cooling')})`);
    console.log(`  requests sent to a cooling exit: ${failing.reduce((a, b) => a + b, 0) - 3}`);
    console.log(`  healthy exits: ${healthy.join(', ')}; mean ${mean.toFixed(1)}, worst deviation ${(worst * 100).toFixed(1)}% (target: within 20%)`);
  } finally {
    await service.stop();
    await Promise.all([target.close(), ...exits.map((exit) => exit.close())]);
  }
}

/**
 * The gateway's own pool work per request, without the scrape around it: the intent, the choice, the
 * job's exit, and recording the use (health and the metric), as gateway/scrape/exit-route.ts runs them.
 * CPU time of a loop in this process, which the machine's load barely moves, unlike the scrape's.
 */
async function selectionAlone(): Promise<void> {
  const db = await openStore({ dataDir: null });
  const exits = parsePoolFile(JSON.stringify({ exits: Array.from({ length: 10 }, (_, i) => ({ id: `e${i}`, url: `http://127.0.0.1:${1000 + i}`, tier: 'datacenter', country: 'DE' })) }));
  const pool = new ExitPool(exits, db, { cooldownBaseMs: 30_000, cooldownMaxMs: 1_800_000, refreshMs: 1000 });
  const metrics = createGatewayMetrics(createRegistry('bench'), { directory: { summary: () => ({}) } as never, db, exitPool: pool });
  const params = { proxy: null, premium_proxy: false, proxy_country: null, sticky_key: null } as unknown as ScrapeParams;
  const result = { ok: true, target_status: 200, blocked: null } as unknown as ScrapeResult;
  const url = 'http://example.com/page';
  const n = 20_000;
  const once = async (): Promise<void> => {
    const chosen = await chooseExit(pool, exitRequestOf(pool, params, null)!, 'p', url, []);
    await recordExitUse(pool, metrics, jobExitOf(chosen!), url, result);
  };
  for (let i = 0; i < n; i++) await once();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < n; i++) await once();
  const used = process.cpuUsage(cpu);
  const wall = ((performance.now() - started) * 1000) / n;
  console.log(`  the gateway's own pool work (intent, choose, job exit, record + metric; 10 exits): ${((used.user + used.system) / n).toFixed(1)} µs CPU, ${wall.toFixed(1)} µs wall per request`);
  await pool.close();
  await db.close();
}

const only = process.env.BENCH_POOL_ONLY;
if (!only || only === 'overhead') {
  await selectionOverhead();
  await selectionAlone();
}
if (!only || only === 'rotation') await rotationUnderFailures();
