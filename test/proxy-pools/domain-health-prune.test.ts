import { describe, expect, it } from 'vitest';
import { ExitPool } from '../../lib/proxy-pool/exit-pool.js';
import { parsePoolFile } from '../../lib/proxy-pool/pool-file.js';
import { listDomainHealth, pruneDomainHealth, recordExitHealth } from '../../lib/store/proxy-pools.js';
import { useTestStore } from '../support/test-store.js';

const store = useTestStore();
const DAY = 86_400_000;
const BASE = 1000;

const domainsOf = async (): Promise<string[]> => (await listDomainHealth(store(), 100_000)).map((row) => `${row.exit_key} ${row.domain}`).sort();
const ageRow = (exitKey: string, domain: string, ms: number) =>
  store().query(`UPDATE proxy_exit_health SET updated_at = now() - ($3::bigint * interval '1 millisecond') WHERE exit_key = $1 AND domain = $2`, [exitKey, domain, ms]);

describe('pruning the per-domain health of pool exits', () => {
  it('deletes rows unchanged for the retention that are not cooling down, never an exit’s own row', async () => {
    const now = Date.now();
    const pool = new ExitPool(parsePoolFile(JSON.stringify({ exits: [{ id: 'a', url: 'http://10.0.0.1:1', tier: 'datacenter' }] })), store(), {
      cooldownBaseMs: BASE,
      cooldownMaxMs: 60 * BASE,
      refreshMs: 0,
      now: () => now,
    });
    for (const domain of ['old.example', 'old.example', 'fresh.example', 'cooling.example']) await pool.record('a', domain, 'ban');
    await pool.record('a', 'x.example', 'dead');
    await ageRow('a', 'old.example', 2 * DAY);
    await ageRow('a', 'cooling.example', 2 * DAY);
    await ageRow('a', '', 2 * DAY);
    // old.example's two bans ended long ago; cooling.example's is still under way at `now`.
    await store().query(`UPDATE proxy_exit_health SET cooldown_until = $1 WHERE domain IN ('old.example', 'fresh.example')`, [now - 1]);

    expect(await pruneDomainHealth(store(), { now, olderThanMs: DAY, maxRows: 1000 })).toBe(1);
    expect(await domainsOf()).toEqual(['a cooling.example', 'a fresh.example']);
    const own = await store().query<{ n: number }>(`SELECT count(*)::int AS n FROM proxy_exit_health WHERE exit_key = 'a' AND domain = ''`);
    expect(own.rows[0].n).toBe(1);
    // Forgotten: the next ban there starts the back-off afresh (its first cooldown, not the third).
    const again = await recordExitHealth(store(), { exitKey: 'a', domain: 'old.example', success: false, failure: false, ban: true, trip: true, authFailedHash: null, lastError: null, now, baseMs: BASE, maxMs: 60 * BASE });
    expect(again.cooldown_until - now).toBe(BASE);
    await pool.close();
  });

  it('keeps at most maxRows, the most recently changed, while gateways prune and record at once', async () => {
    await store().query(`DELETE FROM proxy_exit_health`);
    const now = Date.now();
    // 150 rows, row i changed i seconds ago; every one cooling down, which the count bound does not spare.
    await store().query(
      `INSERT INTO proxy_exit_health (exit_key, domain, bans, cooldown_until, updated_at)
       SELECT 'b', 'site-' || lpad(i::text, 3, '0') || '.example', 1, $1, now() - i * interval '1 second' FROM generate_series(0, 149) AS i`,
      [now + DAY],
    );
    const record = (i: number) =>
      recordExitHealth(store(), { exitKey: 'b', domain: `site-${String(i).padStart(3, '0')}.example`, success: false, failure: false, ban: true, trip: true, authFailedHash: null, lastError: null, now, baseMs: BASE, maxMs: 60 * BASE });
    // Two replicas' prunes and uses of the newest rows, all at once: none waits on another, none fails.
    const [first, second] = await Promise.all([
      pruneDomainHealth(store(), { now, olderThanMs: DAY, maxRows: 100 }),
      pruneDomainHealth(store(), { now, olderThanMs: DAY, maxRows: 100 }),
      ...Array.from({ length: 20 }, (_, i) => record(i)),
    ]);
    // A row the other prune held is skipped, not waited for: a later pass takes what is left.
    await pruneDomainHealth(store(), { now, olderThanMs: DAY, maxRows: 100 });
    expect(first + second).toBeLessThanOrEqual(50);
    const kept = await domainsOf();
    expect(kept).toHaveLength(100);
    expect(kept[0]).toBe('b site-000.example');
    expect(kept.at(-1)).toBe('b site-099.example');
  });
});
