import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../lib/store/accounts.js';
import { jsonPost, type EmbeddedService } from '../support/embedded.js';
import { startHeldSite, type HeldSite } from '../support/held-site.js';
import { until } from '../support/poll.js';
import { createTestDatabase, distributedServicesAvailable } from '../support/services.js';
import { embeddedForSuite } from '../support/suite-service.js';

let service: EmbeddedService;
let site: HeldSite;
let quick: HeldSite;
let database: Awaited<ReturnType<typeof createTestDatabase>>;

const available = await distributedServicesAvailable();
/** Names of the statements the service ran (every caller shares this one store object). */
const statements: string[] = [];

// The hold joins the admission statement on the shared limiter only (PostgreSQL; docs/platform.md, "Performance").
describe.skipIf(!available)("a scrape's credit hold taken in its admission statement (PostgreSQL)", () => {
  beforeAll(async () => {
    [database, site, quick] = await Promise.all([createTestDatabase(), startHeldSite(), startHeldSite()]);
    quick.releaseAll();
  });
  // After-hooks run last registered first: held requests released, the service stopped, then the sites and the database.
  afterAll(async () => {
    await site?.close();
    await quick?.close();
    await database?.drop();
  });
  service = embeddedForSuite(() => ({ engines: ['fetch'], databaseUrl: database.url }));
  afterAll(() => {
    site?.releaseAll();
  });
  beforeAll(() => {
    const query = service.db.query.bind(service.db);
    service.db.query = (sql, params, options) => {
      statements.push(options?.name ?? sql);
      return query(sql, params, options);
    };
  });

  it('holds with the token and the slot: held while the page is fetched, then settled once with what the answer says', async () => {
    // The first hold of the month creates the period row by the separate path; the next ones fold.
    expect((await scrape(service.secret, { url: quick.url, cache: false })).status).toBe(200);
    statements.length = 0;
    const answer = scrape(service.secret, { url: site.url, cache: false });
    await until(() => site.arrived(), (n) => n === 1);
    expect(await holds('settled_at IS NULL')).toBe(1);
    site.releaseAll();
    const response = await answer;
    expect(response.status).toBe(200);
    expect(statements.filter((s) => s.startsWith('limits_') || s.startsWith('credits_'))).toEqual(['limits_admit_and_hold', 'credits_settle_free_slot']);
    const row = await service.db.query<{ charged: string; settled: boolean }>(
      'SELECT charged_micro AS charged, settled_at IS NOT NULL AS settled FROM credit_reservations WHERE request_id = $1',
      [response.headers.get('x-request-id')],
    );
    expect(row.rows.map((r) => ({ charged: Number(r.charged), settled: r.settled }))).toEqual([
      { charged: Number(response.headers.get('x-credits-charged')) * 1_000_000, settled: true },
    ]);
    expect(await holds('settled_at IS NULL')).toBe(0);
    expect(await leases()).toBe(0);
  });

  it('takes no hold for a request its parameters refuse, and the rate limit still answers first', async () => {
    const before = await holds('true');
    const refused = await scrape(service.secret, { url: site.url, cache: false, wait: 'not-a-number' });
    expect(refused.status).toBe(400);
    expect(await holds('true')).toBe(before);
    expect(await leases()).toBe(0);
    await service.db.query('UPDATE organizations SET rate_limit_per_second = 1');
    const { secret } = await createApiKey(service.db, { projectId: service.projectId, name: 'slow', environment: 'live', scopes: ['scrape'] });
    const codes: number[] = [];
    for (let i = 0; i < 4; i += 1) codes.push((await scrape(secret, { url: site.url, cache: false, wait: 'not-a-number' })).status);
    expect(codes).toContain(429);
    expect(codes.filter((code) => code !== 429).every((code) => code === 400)).toBe(true);
    expect(await holds('true')).toBe(before);
  });

  it('answers 402 at 0 credits when the allowance cannot cover the hold, leaving nothing held or leased', async () => {
    await service.db.query('UPDATE organizations SET monthly_credits_micro = 1, rate_limit_per_second = 100');
    const { secret } = await createApiKey(service.db, { projectId: service.projectId, name: 'poor', environment: 'live', scopes: ['scrape'] });
    const response = await scrape(secret, { url: quick.url, cache: false });
    expect(response.status).toBe(402);
    expect(response.headers.get('x-credits-charged')).toBe('0');
    expect(await holds('settled_at IS NULL')).toBe(0);
    expect(await leases()).toBe(0);
  });
});

function scrape(secret: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${service.url}/v1/scrape`, jsonPost(secret, body));
}

async function holds(where: string): Promise<number> {
  return (await service.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM credit_reservations WHERE ${where}`)).rows[0].n;
}

async function leases(): Promise<number> {
  return (await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM concurrency_slots')).rows[0].n;
}
