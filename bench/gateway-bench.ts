/**
 * Gateway overhead on the fetch tier: the same local page fetched directly and through POST /v1/scrape
 * (embedded mode: gateway, in-process bus, fetch worker, content pipeline). Prints figures; not a test.
 */
import { startEmbedded } from '../test/support/embedded.js';
import { startTargetSite } from '../test/support/target-site.js';

const SEQUENTIAL = Number(process.env.BENCH_REQUESTS ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const THROUGHPUT_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

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

async function main(): Promise<void> {
  const site = await startTargetSite();
  const service = await startEmbedded({ engines: ['fetch'] });
  await service.db.query('UPDATE organizations SET rate_limit_per_second = 1000000, concurrency_limit = 10000');
  const page = `${site.origin}/static/article.html`;
  const direct = async () => {
    const response = await fetch(page);
    await response.arrayBuffer();
  };
  const viaApi = async () => {
    const response = await fetch(`${service.url}/v1/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: page, cache: false }),
    });
    if (response.status !== 200) throw new Error(`scrape answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  };
  await latencies(viaApi, 20);
  await latencies(direct, 20);
  const directMs = await latencies(direct, SEQUENTIAL);
  const apiMs = await latencies(viaApi, SEQUENTIAL);
  const directRps = await throughput(direct);
  const apiRps = await throughput(viaApi);
  const row = (name: string, ms: number[], rps: number) =>
    `${name.padEnd(22)} p50 ${percentile(ms, 50).toFixed(2).padStart(7)} ms   p95 ${percentile(ms, 95).toFixed(2).padStart(7)} ms   ${rps.toFixed(0).padStart(6)} req/s (concurrency ${CONCURRENCY})`;
  console.log(`gateway overhead, fetch tier, ${SEQUENTIAL} sequential requests, ${THROUGHPUT_SECONDS} s throughput runs`);
  console.log(row('direct to the page', directMs, directRps));
  console.log(row('through /v1/scrape', apiMs, apiRps));
  console.log(`added latency: p50 ${(percentile(apiMs, 50) - percentile(directMs, 50)).toFixed(2)} ms, p95 ${(percentile(apiMs, 95) - percentile(directMs, 95)).toFixed(2)} ms`);
  await service.stop();
  await site.close();
}

await main();
