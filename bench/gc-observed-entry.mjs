/**
 * A service entry for the benchmarks that also counts the process's garbage collections: it runs the
 * entry named by GC_OBSERVED_ENTRY and, every 200 ms, writes to GC_OBSERVED_FILE how many young- and
 * old-generation collections there have been so far and their main-thread pauses in ms (bench/gc-observed.ts).
 */
import { writeFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const totals = { young: 0, youngMs: 0, old: 0, oldMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) {
      totals.young += 1;
      totals.youngMs += entry.duration;
    } else {
      totals.old += 1;
      totals.oldMs += entry.duration;
    }
  }
}).observe({ entryTypes: ['gc'] });
setInterval(() => writeFileSync(process.env.GC_OBSERVED_FILE, JSON.stringify(totals)), 200).unref();
await import(pathToFileURL(process.env.GC_OBSERVED_ENTRY).href);
