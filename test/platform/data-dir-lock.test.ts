import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreLockedError } from '../../lib/store/data-dir-lock.js';
import { PgliteDb } from '../../lib/store/pglite-db.js';

// Opening PGlite compiles its WASM: tens of seconds on a loaded machine.
const OPEN_MS = 300_000;
const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'trawler-lock-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the embedded store is locked to one opener', () => {
  it('refuses a second open naming the holder, and opens again once the first closed', async () => {
    const dir = dataDir();
    const first = await PgliteDb.open(dir);
    try {
      const refused = await PgliteDb.open(dir).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StoreLockedError);
      expect((refused as Error).message).toContain(`in use by process ${process.pid}`);
      expect((refused as Error).message).toContain('DATABASE_URL');
      // The holder still works after the refused attempt.
      expect((await first.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).toBe(1);
    } finally {
      await first.close();
    }
    expect(existsSync(join(dir, 'trawler.lock'))).toBe(false);
    const again = await PgliteDb.open(dir);
    await again.close();
  }, OPEN_MS);

  it('takes over the lock of a process that no longer runs', async () => {
    const dir = dataDir();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const stale = { pid: gone, host: hostname(), command: 'trawler all', started_at: '2026-01-01T00:00:00.000Z' };
    writeFileSync(join(dir, 'trawler.lock'), JSON.stringify(stale));
    const db = await PgliteDb.open(dir);
    try {
      expect(JSON.parse(readFileSync(join(dir, 'trawler.lock'), 'utf8'))).toMatchObject({ pid: process.pid });
      expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).toBe(1);
    } finally {
      await db.close();
    }
  }, OPEN_MS);

  it('honours a lock written on another host (a shared volume), as its process cannot be checked', async () => {
    const dir = dataDir();
    const remote = { pid: 1, host: `not-${hostname()}`, command: 'trawler all', started_at: '2026-01-01T00:00:00.000Z' };
    writeFileSync(join(dir, 'trawler.lock'), JSON.stringify(remote));
    await expect(PgliteDb.open(dir)).rejects.toThrow(`in use by process 1 on not-${hostname()}`);
    expect(JSON.parse(readFileSync(join(dir, 'trawler.lock'), 'utf8'))).toEqual(remote);
  });
});
