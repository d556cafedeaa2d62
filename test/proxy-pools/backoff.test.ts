import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitPool } from '../../lib/proxy-pool/exit-pool.js';
import { parsePoolFile } from '../../lib/proxy-pool/pool-file.js';
import type { Db } from '../../lib/store/db.js';
import { openStore } from '../../lib/store/open.js';

let db: Db;
let clock = 1_000_000;
const BASE = 1000;
const MAX = 5000;

const poolWith = (password: string): ExitPool =>
  new ExitPool(
    parsePoolFile(JSON.stringify({ exits: [{ id: 'a', url: `http://u:${password}@10.0.0.1:1`, tier: 'residential', country: 'DE' }, { id: 'b', url: 'http://10.0.0.2:1', tier: 'residential', country: 'DE' }] })),
    db,
    { cooldownBaseMs: BASE, cooldownMaxMs: MAX, refreshMs: 0, now: () => clock },
  );

const intent = { tier: 'residential' as const, required: true, country: 'DE', region: null };
const choose = async (pool: ExitPool): Promise<string | undefined> =>
  (await pool.choose({ intent, domain: 'example.com', projectId: 'p', stickyKey: null }))?.candidate.key;

beforeAll(async () => {
  db = await openStore({ dataDir: null });
});
afterAll(async () => {
  await db?.close();
});

describe('exit back-off with an injected clock', () => {
  it('doubles the cooldown on each consecutive failure up to the cap, and a success ends it', async () => {
    const pool = poolWith('p');
    const cooldownLeft = async (): Promise<number> => Date.parse((await pool.status()).find((s) => s.key === 'a')?.cooldown_until ?? '') - clock;
    const cooldowns: number[] = [];
    for (let i = 0; i < 5; i++) {
      await pool.record('a', 'example.com', 'dead');
      cooldowns.push(await cooldownLeft());
    }
    expect(cooldowns).toEqual([1000, 2000, 4000, 5000, 5000]);
    // While a cools down every selection takes b; after the cooldown a is tried again.
    expect([await choose(pool), await choose(pool)]).toEqual(['b', 'b']);
    clock += MAX + 1;
    // Tried again, though less often than b while its record is poor (rotation weighted by health).
    const picks: Array<string | undefined> = [];
    for (let i = 0; i < 10; i++) picks.push(await choose(pool));
    expect(picks).toContain('a');
    expect(picks.filter((key) => key === 'a').length).toBeLessThan(picks.filter((key) => key === 'b').length);
    await pool.record('a', 'example.com', 'ok');
    await pool.flush();
    await pool.record('a', 'example.com', 'dead');
    expect(await cooldownLeft()).toBe(BASE);
  });

  it('keeps an exit refused with 407 out of rotation until its credentials change', async () => {
    const pool = poolWith('old');
    await pool.record('a', 'example.com', 'auth');
    clock += 10 * MAX;
    for (let i = 0; i < 4; i++) expect(await choose(pool)).toBe('b');
    expect((await poolWith('old').status()).find((s) => s.key === 'a')?.state).toBe('auth_failed');
    // A new password in the pool file (as after a restart with the fixed file) brings it back.
    expect((await poolWith('new').status()).find((s) => s.key === 'a')?.state).toBe('healthy');
  });

  it('cools an exit down for one domain only after a ban', async () => {
    const pool = poolWith('p2');
    await db.query('DELETE FROM proxy_exit_health');
    await pool.record('b', 'example.com', 'ban');
    const other = await pool.choose({ intent, domain: 'other.org', projectId: 'p', stickyKey: null, exclude: new Set(['a']) });
    expect(other?.candidate.key).toBe('b');
    await expect(pool.choose({ intent, domain: 'example.com', projectId: 'p', stickyKey: null, exclude: new Set(['a']) })).rejects.toThrow(/EXHAUSTED/);
  });
});
