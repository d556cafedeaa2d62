import { beforeAll, describe, expect, it } from 'vitest';
import { createLimits } from '../../gateway/limits/limits.js';
import type { ConcurrencySlot } from '../../gateway/limits/concurrency.js';
import { createLogger } from '../../lib/log.js';
import { createApiKey, createOrganization, createProject } from '../../lib/store/accounts.js';
import type { Db } from '../../lib/store/db.js';
import { distributedServicesAvailable } from '../support/services.js';
import { useTestStore } from '../support/test-store.js';

const available = await distributedServicesAvailable();
const logger = createLogger('test', 'silent');

/** `db` with every statement it runs recorded by name. */
function countingDb(db: Db, statements: string[]): Db {
  return {
    kind: db.kind,
    query: (sql, params, options) => {
      statements.push(options?.name ?? sql);
      return db.query(sql, params, options);
    },
    exec: (sql) => db.exec(sql),
    transaction: (work) => db.transaction(work),
    withAdvisoryLock: (key, work) => db.withAdvisoryLock(key, work),
    close: () => db.close(),
  };
}

describe.skipIf(!available)("a scrape's token and concurrency slot on the shared limiter (PostgreSQL)", () => {
  const store = useTestStore();
  let db: Db;
  beforeAll(() => {
    db = store();
  });

  it('takes both in one statement, says full when no slot is free, and takes no slot when the token is refused', async () => {
    const organization = await createOrganization(db, 'admission', { monthlyCreditsMicro: 1_000_000, rateLimitPerSecond: 2, concurrencyLimit: 2 });
    const project = await createProject(db, organization.id, 'admission');
    const { key } = await createApiKey(db, { projectId: project.id, name: 'k', environment: 'live', scopes: ['scrape'] });
    const statements: string[] = [];
    // The buckets' clock stands still: 2 per second with a burst of two seconds is 4 tokens, none refilled.
    const limits = createLimits(countingDb(db, statements), logger, { clock: () => 5_000_000, storeTimeoutMs: 120_000 });
    const admit = () => limits.rateLimiter.admit!(key.id, 2, organization.id, 2);
    const slots = async () => Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM concurrency_slots WHERE organization_id = $1', [organization.id])).rows[0].n);
    try {
      const first = await admit();
      const second = await admit();
      expect(statements).toEqual(['limits_take_token_claim_slot', 'limits_take_token_claim_slot']);
      expect(first.rate).toEqual({ limit: 2, remaining: 3 });
      expect(second.rate).toEqual({ limit: 2, remaining: 2 });
      const [a, b] = [first.slot as ConcurrencySlot, second.slot as ConcurrencySlot];
      expect([a.remaining, b.remaining]).toEqual([1, 0]);
      expect(await slots()).toBe(2);
      // Token granted, no slot free.
      expect(await admit()).toMatchObject({ rate: { limit: 2, remaining: 1 }, slot: 'full' });
      await a.release();
      // The last token takes the freed slot; then the bucket is empty: 429 and no slot taken.
      const third = await admit();
      expect((third.slot as ConcurrencySlot).remaining).toBe(0);
      await b.release();
      await expect(admit()).rejects.toMatchObject({ code: 'ERR::LIMIT::RATE_LIMITED' });
      expect(await slots()).toBe(1);
      await (third.slot as ConcurrencySlot).release();
      expect(await slots()).toBe(0);
    } finally {
      await limits.concurrency.close();
    }
  });
});
