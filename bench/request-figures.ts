/** Latency and throughput of a request against a service, as the API benchmarks measure them. */
export const SEQUENTIAL = Number(process.env.BENCH_REQUESTS ?? 300);
export const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
export const THROUGHPUT_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

export interface Figures {
  p50: number;
  p95: number;
  rps: number;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export async function latencies(run: () => Promise<void>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const start = performance.now();
    await run();
    out.push(performance.now() - start);
  }
  return out;
}

/** Requests a second at CONCURRENCY for THROUGHPUT_SECONDS (or `seconds`). */
export async function throughput(run: () => Promise<void>, seconds = THROUGHPUT_SECONDS): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        await run();
        done += 1;
      }
    }),
  );
  return done / seconds;
}

export async function figures(run: () => Promise<void>, sequential = SEQUENTIAL): Promise<Figures> {
  const ms = await latencies(run, sequential);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95), rps: await throughput(run) };
}
