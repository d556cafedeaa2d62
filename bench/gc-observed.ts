/** The garbage collections of a benchmarked service process, read from what bench/gc-observed-entry.mjs writes. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface GcTotals {
  young: number;
  youngMs: number;
  old: number;
  oldMs: number;
}

export interface GcObserved {
  /** The entry to start the service with, and the settings it needs. */
  entry: string;
  settings: Record<string, string>;
  /** The collections so far (zeros before the first write). */
  read(): GcTotals;
}

/** Wraps a compiled service entry so its collections are counted; null for a `.ts` entry (run through tsx, not wrapped). */
export function observeGc(entry: string): GcObserved | null {
  if (entry.endsWith('.ts')) return null;
  const file = join(mkdtempSync(join(tmpdir(), 'trawler-gc-')), 'gc.json');
  return {
    entry: fileURLToPath(new URL('./gc-observed-entry.mjs', import.meta.url)),
    settings: { GC_OBSERVED_ENTRY: entry, GC_OBSERVED_FILE: file },
    read() {
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as GcTotals;
      } catch {
        return { young: 0, youngMs: 0, old: 0, oldMs: 0 };
      }
    },
  };
}
