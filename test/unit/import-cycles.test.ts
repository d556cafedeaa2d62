import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

interface MadgeResult {
  circular(): string[][];
  obj(): Record<string, string[]>;
}
type Madge = (path: string, config: Record<string, unknown>) => Promise<MadgeResult>;
const madge = createRequire(import.meta.url)('madge') as Madge;
const root = fileURLToPath(new URL('../..', import.meta.url));

/** docs/architecture.md: no import cycle of any kind, type-only ones included, in the programs, lib, tests and benchmarks. */
describe('the import graph', () => {
  it('has no cycle, type-only imports included', async () => {
    const graph = await madge(root, {
      fileExtensions: ['ts'],
      tsConfig: `${root}/tsconfig.json`,
      excludeRegExp: [/^node_modules/, /^dist/],
    });
    expect(Object.keys(graph.obj()).length).toBeGreaterThan(300);
    expect(graph.circular()).toEqual([]);
  }, 120_000);
});
