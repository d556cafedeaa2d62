import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md, "Tests": test/unit holds only tests that need nothing but the code, in folders
 * mirroring the source. A file
 * under test/unit, or a test file outside it that such a file imports, may not import what opens a
 * database, a socket, a server, a browser or a process: PGlite, PostgreSQL, NATS, node's network and
 * process modules, Playwright or puppeteer, nor the modules of this repository that start them (the
 * stores, the NATS bus, the programs). Type-only imports are allowed: they are gone at run time.
 * A suite that needs one of them lives in the folder of the feature it tests.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const unit = join(root, 'test/unit');

const OPENS_SOMETHING = [
  /^(node:)?(net|http|https|http2|tls|dgram|child_process|cluster|worker_threads)(\/|$)/,
  /^@electric-sql\/pglite/,
  /^pg(-|$|\/)/,
  /^nats$/,
  /^(playwright|playwright-core|puppeteer|puppeteer-core)(\/|$)/,
  /^(ws|undici)$/,
];
/** This repository's modules that open a store, a bus connection or start a program (paths from the root, no extension). */
const STARTS_SOMETHING = [
  /^lib\/store\/(open|pglite-db|pg-db)$/,
  /^lib\/bus\/nats-bus$/,
  /^(gateway|worker|operator)\/main$/,
  /^bin\//,
  /^bench\//,
];

/** The modules a file imports at run time (static and dynamic imports, require), type-only imports left out. */
function runtimeImports(source: string): string[] {
  const found: string[] = [];
  const statement = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/g;
  for (const match of source.matchAll(statement)) if (!match[2]) found.push(match[3]);
  for (const match of source.matchAll(/\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(match[1]);
  return found;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** What `file`, and the test files it imports in turn, import that opens or starts something: "file: module". */
function offences(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const found: string[] = [];
  for (const specifier of runtimeImports(readFileSync(file, 'utf8'))) {
    const where = relative(root, file);
    if (!specifier.startsWith('.')) {
      if (OPENS_SOMETHING.some((pattern) => pattern.test(specifier))) found.push(`${where}: ${specifier}`);
      continue;
    }
    const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
    const fromRoot = relative(root, target).replace(/\.ts$/, '');
    if (STARTS_SOMETHING.some((pattern) => pattern.test(fromRoot))) found.push(`${where}: ${specifier}`);
    else if (fromRoot.startsWith('test/') && existsSync(target)) found.push(...offences(target, seen));
  }
  return found;
}

describe('test/unit', () => {
  it('finds run-time imports and leaves type-only ones out', () => {
    const source = [
      "import type { Page } from 'playwright-core';",
      "import { type Db, query } from '../lib/store/db.js';",
      "import pg from 'pg';",
      "export { thing } from './thing.js';",
      "const later = await import('node:http');",
    ].join('\n');
    expect(runtimeImports(source)).toEqual(['../lib/store/db.js', 'pg', './thing.js', 'node:http']);
  });

  it('imports nothing that opens a database, a socket, a server, a browser or a process', () => {
    // This file is left out: its own example imports above are text, not imports.
    const files = filesUnder(unit).filter((file) => file !== fileURLToPath(import.meta.url));
    expect(files.length).toBeGreaterThan(20);
    expect(files.flatMap((file) => offences(file))).toEqual([]);
  });

  it('mirrors the source: a file in a folder of test/unit sits where its module\'s folder is', () => {
    // Checks of the whole repository (its import graph, this folder) stand at the top.
    const misplaced = filesUnder(unit)
      .map((file) => relative(unit, dirname(file)))
      .filter((folder) => folder !== '' && !existsSync(join(root, folder)));
    expect([...new Set(misplaced)]).toEqual([]);
  });
});
