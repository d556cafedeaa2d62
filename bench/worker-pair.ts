/**
 * Worker CPU per fetch job of two checkouts, measured side by side so both see the same machine load:
 * each checkout's `trawler worker --engine fetch` in a NATS namespace of its own, fed scrape jobs
 * straight over NATS (no gateway, no database) at concurrency 8 each, the local article page, CPU
 * from /proc. On a shared machine, where CPU per job swings by 40% between runs, the ratio of a pair
 * is steadier than either figure; swap the order between runs.
 * Each checkout runs its compiled build (bench/service-entry.ts: build both first). BENCH_PAIR=dirA,dirB
 * (default: this checkout twice), BENCH_REQUESTS (default 5000 jobs each), BENCH_WARMUP_REQUESTS
 * (default 3000). Needs NATS (test/support/services.ts). Prints figures; not a test.
 */
import { NatsBus } from '../lib/bus/nats-bus.js';
import { newId } from '../lib/ids.js';
import { SCRAPE_JOB_TYPE, ScrapeResultSchema, WORKER_HEARTBEAT_SUBJECT, scrapeSubject } from '../lib/protocol/index.js';
import { defaultScrapeParams } from '../lib/scrape/defaults.js';
import { NATS_URL } from '../test/support/services.js';
import { startTargetSite } from '../test/support/target-site.js';
import { startProcess, stopAll } from './distributed.js';
import { serviceEntry } from './service-entry.js';
import { procCpuMicros } from './proc-cpu.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5000);
const WARMUP_REQUESTS = Number(process.env.BENCH_WARMUP_REQUESTS ?? 3000);
const CONCURRENCY = 8;
const CHECKOUTS = (process.env.BENCH_PAIR ?? `${process.cwd()},${process.cwd()}`).split(',');

async function startSide(checkout: string, page: string) {
  const namespace = `w${newId().toLowerCase()}`;
  const bus = await NatsBus.connect(NATS_URL, 'worker-pair', namespace);
  const joined = new Promise<void>((resolve) => bus.subscribe(WORKER_HEARTBEAT_SUBJECT, () => resolve()));
  const env = { NATS_URL, NATS_NAMESPACE: namespace, METRICS_PORT: '0', TRAWLER_ALLOW_LOOPBACK_TARGETS: 'true' };
  const worker = startProcess(['worker', '--engine', 'fetch'], env, serviceEntry(checkout));
  await joined;
  const scrape = async () => {
    const now = Date.now();
    const params = { ...defaultScrapeParams(), url: page, cache: false };
    const job = { type: SCRAPE_JOB_TYPE, request_id: `req_${newId()}`, project_id: 'prj_pair', engine: 'fetch', params, deadline_at: now + 60_000, budget_ms: 60_000, dispatched_at: now, session: null };
    const reply = await bus.requestJson(scrapeSubject('fetch'), job, ScrapeResultSchema, { timeoutMs: 30_000 });
    if (!reply.ok || !reply.value.ok) throw new Error(`job failed: ${JSON.stringify(reply)}`);
  };
  const run = async (count: number) => {
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < count) await scrape();
    }));
  };
  return { checkout, worker, bus, run, cpu: () => procCpuMicros(`/proc/${worker.child.pid}/stat`) ?? 0 };
}

async function main(): Promise<void> {
  const site = await startTargetSite();
  const sides = await Promise.all(CHECKOUTS.map((checkout) => startSide(checkout, `${site.origin}/static/article.html`)));
  await Promise.all(sides.map((side) => side.run(WARMUP_REQUESTS)));
  const before = sides.map((side) => side.cpu());
  await Promise.all(sides.map((side) => side.run(REQUESTS)));
  const after = sides.map((side) => side.cpu());
  for (const [i, side] of sides.entries()) console.log(`  ${side.checkout}: ${((after[i] - before[i]) / REQUESTS / 1000).toFixed(3)} ms worker CPU per job`);
  for (const side of sides) {
    await stopAll([side.worker.child]);
    await side.bus.close();
  }
  await site.close();
}

await main();
