/** `make bench`: every benchmark in turn, each in its own process so one cannot skew the next. */
import { spawnSync } from 'node:child_process';

const BENCHES = ['bench/gateway-bench.ts', 'bench/format-bench.ts', 'bench/content-allocation.ts', 'bench/content-crossover.ts', 'bench/content-bench.ts', 'bench/main-content-bench.ts', 'bench/browser-bench.ts', 'bench/settle-bench.ts', 'bench/remote-browser-bench.ts', 'bench/batch-bench.ts', 'bench/crawl-bench.ts', 'bench/proxy-pool-bench.ts', 'bench/ai-extract-bench.ts'];

let failed = 0;
for (const bench of BENCHES) {
  console.log(`\n=== ${bench}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', bench], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
