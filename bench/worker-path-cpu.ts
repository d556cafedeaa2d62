/**
 * CPU per job of the worker's side of a scrape alone (issue 11): the fetch engine, the egress guard
 * and the content thread pool in this process, `runJob` as the worker node calls it, against the
 * same local page as bench/fetch-cpu.ts. CPU is the whole process's (all threads, the page server
 * included), so the figure is steadier than wall time on a shared machine.
 * BENCH_REQUESTS (default 3000), BENCH_CONCURRENCY (default 8), BENCH_IMPERSONATE (default true),
 * BENCH_PROFILE=file.cpuprofile profiles the main thread over the measured jobs. Prints figures; not a test.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { startTargetSite } from '../test/support/target-site.js';
import { wireJob } from '../test/support/scrape-job.js';
import { ContentPool } from '../worker/content/pool.js';
import { EgressGuard } from '../worker/egress/guard.js';
import { FetchEngine } from '../worker/fetch/fetch-engine.js';
import { runJob } from '../worker/runner.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const IMPERSONATE = (process.env.BENCH_IMPERSONATE ?? 'true') === 'true';

const site = await startTargetSite();
const policy = { allowLoopback: true };
const guard = await EgressGuard.start({ policy });
const engine = new FetchEngine({ guard, policy });
const content = new ContentPool();
const context = { workerId: 'bench', signal: new AbortController().signal };
const url = `${site.origin}/static/article.html`;

async function runJobs(count: number): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      const job = wireJob({ engine: 'fetch', params: { url, impersonate: IMPERSONATE }, budgetMs: 30_000, requestId: `bench-${next}`, projectId: 'bench' });
      const result = await runJob(engine, content, job, context);
      if (!result.ok) throw new Error(`job failed: ${result.error.code}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}

await runJobs(500);
const profiler = process.env.BENCH_PROFILE ? new Session() : null;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
}
const cpuStart = process.cpuUsage();
const started = performance.now();
await runJobs(REQUESTS);
const wall = performance.now() - started;
const cpu = process.cpuUsage(cpuStart);
if (profiler) {
  const { profile } = await profiler.post('Profiler.stop');
  writeFileSync(process.env.BENCH_PROFILE!, JSON.stringify(profile));
  profiler.disconnect();
}
const perJob = (micros: number) => (micros / REQUESTS / 1000).toFixed(3);
console.log(
  `worker path, impersonate=${IMPERSONATE}: ${perJob(cpu.user + cpu.system)} ms CPU per job (user ${perJob(cpu.user)}, system ${perJob(cpu.system)}), ${((REQUESTS / wall) * 1000).toFixed(0)} jobs/s at c=${CONCURRENCY}`,
);
await content.close();
await engine.stop();
await guard.close();
await site.close();
