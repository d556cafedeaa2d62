import { createApiKey } from '../../lib/store/accounts.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, jsonPost } from '../support/embedded.js';
import { startHeldSite, type HeldSite } from '../support/held-site.js';
import { until } from '../support/poll.js';
import { embeddedForSuite } from '../support/suite-service.js';

// The embedded store keeps scrape holds in memory and group-commits their settlements (lib/store/memory-holds.ts).
let site: HeldSite;
let secondSite: HeldSite;

beforeAll(async () => {
  [site, secondSite] = await Promise.all([startHeldSite(), startHeldSite()]);
});
// After-hooks run last registered first: held requests released, the service stopped, then the sites closed.
afterAll(async () => {
  await Promise.all([site?.close(), secondSite?.close()]);
});
const service = embeddedForSuite({ engines: ['fetch'] });
afterAll(() => {
  site?.releaseAll();
  secondSite?.releaseAll();
});
beforeAll(async () => {
  await service.db.query('UPDATE organizations SET monthly_credits_micro = 1000000000, concurrency_limit = 100, rate_limit_per_second = 1000');
});

interface Usage {
  spent_micro: number;
  reserved_micro: number;
}

let secret = '';
const usage = async () => (await (await fetch(`${service.url}/v1/usage`, authed(secret))).json()) as Usage;
const reconciliation = async () =>
  (await (await fetch(`${service.url}/v1/usage/reconciliation`, authed(secret))).json()) as { consistent: boolean; holds: { open_count: number } };

/** Key lookups are cached: a new key reads the organization's allowance as it is now. */
async function freshKey(): Promise<void> {
  secret = (await createApiKey(service.db, { projectId: service.projectId, name: 'holds', environment: 'live', scopes: ['scrape', 'read'] })).secret;
}

/** Starts `count` scrapes of the held site; each resolves to its status and X-Credits-Charged in micro-credits. */
function scrapes(target: HeldSite, count: number) {
  return Array.from({ length: count }, () =>
    fetch(`${service.url}/v1/scrape`, jsonPost(secret, { url: target.url, cache: false })).then(async (response) => {
      await response.arrayBuffer();
      return { status: response.status, chargedMicro: Math.round(Number(response.headers.get('x-credits-charged')) * 1_000_000) };
    }),
  );
}

describe('scrape holds on the embedded store', () => {
  let holdMicro = 0;

  it('shows open holds as reserved in GET /v1/usage and the reconciliation, and settles them into spent', async () => {
    await freshKey();
    const before = await usage();
    const answers = scrapes(site, 3);
    await until(() => site.arrived(), (n) => n >= 3);
    const open = await usage();
    expect(open.spent_micro).toBe(before.spent_micro);
    expect(open.reserved_micro).toBeGreaterThan(0);
    expect(open.reserved_micro % 3).toBe(0);
    holdMicro = open.reserved_micro / 3;
    expect(await reconciliation()).toMatchObject({ consistent: true, holds: { open_count: 3 } });
    site.releaseAll();
    const done = await Promise.all(answers);
    expect(done.map((a) => a.status)).toEqual([200, 200, 200]);
    const after = await usage();
    expect(after.reserved_micro).toBe(0);
    expect(after.spent_micro - before.spent_micro).toBe(done.reduce((sum, a) => sum + a.chargedMicro, 0));
    expect(await reconciliation()).toMatchObject({ consistent: true, holds: { open_count: 0 } });
  });

  it('never lets concurrent scrapes together pass the allowance, and every answer’s charge is in the ledger', async () => {
    const before = await usage();
    // Room for exactly three holds.
    await service.db.query('UPDATE organizations SET monthly_credits_micro = $1', [before.spent_micro + 3 * holdMicro]);
    await freshKey();
    const answers = scrapes(secondSite, 6);
    let refused = 0;
    for (const answer of answers) void answer.then((a) => (refused += a.status === 402 ? 1 : 0));
    await until(() => ({ arrived: secondSite.arrived(), refused }), (s) => s.arrived >= 3 && s.refused === 3);
    expect((await usage()).reserved_micro).toBe(3 * holdMicro);
    secondSite.releaseAll();
    const done = await Promise.all(answers);
    expect(done.filter((a) => a.status === 200)).toHaveLength(3);
    expect(done.filter((a) => a.status === 402).every((a) => a.chargedMicro === 0)).toBe(true);
    const after = await usage();
    expect(after.reserved_micro).toBe(0);
    expect(after.spent_micro - before.spent_micro).toBe(done.reduce((sum, a) => sum + a.chargedMicro, 0));
    expect(after.spent_micro).toBeLessThanOrEqual(before.spent_micro + 3 * holdMicro);
    expect(await reconciliation()).toMatchObject({ consistent: true });
  });
});
