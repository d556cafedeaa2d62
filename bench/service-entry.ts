/**
 * The `trawler` command the benchmarks start: the compiled build (`dist/bin/trawler.js`), as `make run`
 * and the container images run it, not the sources through tsx, whose `keepNames` wraps every named
 * closure a request creates (about 1% of the gateway's CPU). `make bench` builds first; a build older
 * than the sources is refused rather than measured. BENCH_FROM_SOURCES=1 runs the sources instead.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const SOURCE_DIRS = ['bin', 'lib', 'gateway', 'worker', 'operator', 'cli', 'dashboard'];

function newestSourceMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMs(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

export function serviceEntry(checkout = process.cwd()): string {
  if (process.env.BENCH_FROM_SOURCES === '1') return join(checkout, 'bin/trawler.ts');
  const built = join(checkout, 'dist/bin/trawler.js');
  const sources = Math.max(...SOURCE_DIRS.map((dir) => join(checkout, dir)).filter(existsSync).map(newestSourceMs));
  if (!existsSync(built) || statSync(built).mtimeMs < sources) {
    throw new Error(`${built} is missing or older than the sources: run \`make build\` first (or BENCH_FROM_SOURCES=1)`);
  }
  return built;
}
