import { beforeAll, describe, expect, it } from 'vitest';
import { createLimits } from '../../gateway/limits/create-limits.js';
import type { ConcurrencySlot } from '../../gateway/limits/concurrency.js';
import { createLogger } from '../../lib/log.js';
import { createApiKey, createOrganization, createProject } from '../../lib/store/accounts.js';
import type { Db } from '../../lib/store/db.js';
import { takeStoredHold } from '../../lib/store/credits.js';
import { settleStored } from '../../lib/store/stored-settlements.js';
import { allowancePeriod, isoDate } from '../../lib/store/allowance-period.js';
import { newId } from '../../lib/ids.js';
import { until } from '../support/poll.js';
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
      // Three tokens are left, but Remaining never reads above Limit (rate-limiter.ts rateDecision).
      expect(first.rate).toEqual({ limit: 2, remaining: 2 });
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

describe.skipIf(!available)('a hold taken by an admission statement that answered too late (PostgreSQL)', () => {
  const store = useTestStore();

  it('is settled at 0 and its slot freed, once, while the request was admitted by the local count', async () => {
    const db = store();
    const organization = await createOrganization(db, 'late', { monthlyCreditsMicro: 10_000_000, rateLimitPerSecond: 100, concurrencyLimit: 2 });
    const project = await createProject(db, organization.id, 'late');
    const { key } = await createApiKey(db, { projectId: project.id, name: 'k', environment: 'live', scopes: ['scrape'] });
    const account = { organizationId: organization.id, projectId: project.id, organizationCreatedAt: organization.created_at, monthlyCreditsMicro: 10_000_000, environment: 'live' as const };
    // The period row exists (a first hold creates it), so the admission statement can hold.
    await settleStored(db, { holdId: (await takeStoredHold(db, account, 1)).id, chargedMicro: 0, engine: null, leaseHolder: null });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let ran!: () => void;
    const admissionRan = new Promise<void>((resolve) => (ran = resolve));
    const heldBack: Db = {
      ...countingDb(db, []),
      query: async (sql, params, options) => {
        if (options?.name !== 'limits_admit_and_hold') return db.query(sql, params, options);
        await gate;
        try {
          return await db.query(sql, params, options);
        } finally {
          ran();
        }
      },
    };
    const limits = createLimits(heldBack, logger, { storeTimeoutMs: 20 });
    const hold = {
      id: newId(),
      projectId: project.id,
      periodStart: isoDate(allowancePeriod(organization.created_at, new Date()).start),
      environment: 'live',
      amountMicro: 3_000_000,
      allowanceMicro: 10_000_000,
      requestId: 'late-request',
    };
    try {
      const admission = await limits.rateLimiter.admit!(key.id, 100, organization.id, 2, hold);
      expect(admission).toMatchObject({ slot: null, reservation: null });
      open();
      await admissionRan;
      const state = async () =>
        (
          await db.query<{ settled: boolean; charged: number; reserved: number; slots: number }>(
            `SELECT r.settled_at IS NOT NULL AS settled, r.charged_micro AS charged, p.reserved_micro AS reserved,
                    (SELECT count(*)::int FROM concurrency_slots WHERE organization_id = $2) AS slots
               FROM credit_reservations r JOIN credit_period_totals p USING (organization_id, period_start, environment) WHERE r.id = $1`,
            [hold.id, organization.id],
          )
        ).rows[0];
      const final = await until(state, (s) => s?.settled === true && s.slots === 0);
      expect(final).toMatchObject({ charged: 0, slots: 0 });
      expect(Number(final.reserved)).toBe(0);
    } finally {
      await limits.concurrency.close();
    }
  });
});
