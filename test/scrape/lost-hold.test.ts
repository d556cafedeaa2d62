import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../lib/store/accounts.js';
import { authed, jsonPost, type EmbeddedService } from '../support/embedded.js';
import { startHeldSite, type HeldSite } from '../support/held-site.js';
import { until } from '../support/poll.js';
import { createTestDatabase, distributedServicesAvailable } from '../support/services.js';
import { creditTotals } from '../support/ledger.js';
import { embeddedForSuite } from '../support/suite-service.js';

let service: EmbeddedService;
let site: HeldSite;
let database: Awaited<ReturnType<typeof createTestDatabase>>;

const available = await distributedServicesAvailable();

// Holds live in the store on PostgreSQL only; the embedded store keeps them in memory (test/scrape/memory-holds.test.ts).
describe.skipIf(!available)('a credit hold lost before its settlement (docs/platform.md, "Performance")', () => {
  beforeAll(async () => {
    [database, site] = await Promise.all([createTestDatabase(), startHeldSite()]);
  });
  // After-hooks run last registered first: held requests released, the service stopped, then the site and the database.
  afterAll(async () => {
    await site?.close();
    await database?.drop();
  });
  service = embeddedForSuite(() => ({ engines: ['fetch'], databaseUrl: database.url }));
  afterAll(() => {
    site?.releaseAll();
  });

  it('answers the scrape as a failure at 0 credits, and the ledger and the request log agree', async () => {
    const spentBefore = await spent();
    const answer = fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: site.url, cache: false }));
    await until(() => site.arrived(), (n) => n === 1);
    // What a database crash does to a hold whose commit had not reached the disk: the row and its amount are gone.
    await service.db.query(
      `WITH gone AS (DELETE FROM credit_reservations WHERE settled_at IS NULL RETURNING organization_id, period_start, environment, amount_micro)
       UPDATE credit_periods p SET reserved_micro = p.reserved_micro - g.amount_micro FROM gone g
        WHERE p.organization_id = g.organization_id AND p.period_start = g.period_start AND p.environment = g.environment`,
    );
    site.releaseAll();
    const response = await answer;
    expect(response.status).toBe(500);
    expect(response.headers.get('x-credits-charged')).toBe('0');
    expect(await spent()).toBe(spentBefore);
    const entry = await fetch(`${service.url}/v1/requests/${response.headers.get('x-request-id')}`, authed(service.secret));
    expect(await entry.json()).toMatchObject({ credits_micro: 0, status: 'failed' });
  });

  it('frees the concurrency slot in the settlement: no lease is left, and scrapes one after another at limit 1 are admitted', async () => {
    site.releaseAll();
    await service.db.query('UPDATE organizations SET concurrency_limit = 1');
    // Key lookups are cached: a new key reads the new limit.
    const { secret } = await createApiKey(service.db, { projectId: service.projectId, name: 'one-slot', environment: 'live', scopes: ['scrape'] });
    for (let i = 0; i < 3; i += 1) {
      const response = await fetch(`${service.url}/v1/scrape`, jsonPost(secret, { url: site.url, cache: false }));
      expect(response.status).toBe(200);
      expect(response.headers.get('concurrency-limit')).toBe('1');
      const leases = await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM concurrency_slots');
      expect(leases.rows[0].n).toBe(0);
      const settled = await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM credit_reservations WHERE request_id = $1 AND settled_at IS NOT NULL', [
        response.headers.get('x-request-id'),
      ]);
      expect(settled.rows[0].n).toBe(1);
    }
  });
});

async function spent(): Promise<number> {
  return (await creditTotals(service.db, 'all')).spent;
}
