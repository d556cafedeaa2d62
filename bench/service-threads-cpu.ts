/**
 * Where the embedded service's CPU per scrape goes by thread: the same local page through POST
 * /v1/scrape against `trawler all` (bench/distributed.ts), CPU of the service's main thread and of its
 * other threads (content threads, V8's helpers, impit's) from /proc, with this process's (the client's)
 * beside it: on a shared machine the client's figure, the same code on every run, shows how much
 * the load alone moved the run. BENCH_CONCURRENCY (default "8,1"), BENCH_REQUESTS (default 2000).
 * Prints figures; not a test.
 */
import { readdirSync } from 'node:fs';
import { startTargetSite } from '../test/support/target-site.js';
import { startEmbeddedProcess } from './distributed.js';
import { fetchTierRequests } from './fetch-tier-requests.js';
import { procCpuMicros } from './proc-cpu.js';

const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? '8,1').split(',').map(Number);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
/** CPU microseconds so far of the process's main thread and of all its other threads. */
function threadMicros(pid: number): { main: number; others: number } {
  const out = { main: 0, others: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const micros = procCpuMicros(`/proc/${pid}/task/${tid}/stat`);
    if (micros === null) continue; // a thread that ended meanwhile
    if (tid === String(pid)) out.main += micros;
    else out.others += micros;
  }
  return out;
}

async function run(scrape: () => Promise<void>, count: number, concurrency: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        await scrape();
      }
    }),
  );
}

const site = await startTargetSite();
const service = await startEmbeddedProcess();
try {
  const { viaApi } = fetchTierRequests(`${site.origin}/static/article.html`, service);
  const pid = service.pids[0];
  await run(viaApi, 600, 8);
  for (const concurrency of CONCURRENCIES) {
    const before = threadMicros(pid);
    const client = process.cpuUsage();
    const start = performance.now();
    await run(viaApi, REQUESTS, concurrency);
    const wall = performance.now() - start;
    const after = threadMicros(pid);
    const used = process.cpuUsage(client);
    const per = (micros: number) => (micros / REQUESTS / 1000).toFixed(3);
    console.log(
      `c=${concurrency}: service ${per(after.main + after.others - before.main - before.others)} ms CPU per scrape ` +
        `(main thread ${per(after.main - before.main)}, other threads ${per(after.others - before.others)}), ` +
        `client ${per(used.user + used.system)} ms, ${((REQUESTS / wall) * 1000).toFixed(0)} req/s`,
    );
  }
} finally {
  await service.stop();
  await site.close();
}
