import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed } from '../support/embedded.js';
import { startHeldSite, type HeldSite } from '../support/held-site.js';
import { until } from '../support/poll.js';
import { startExitTarget, startStaticExit, type ExitServer, type ExitTarget } from '../support/pool-exits.js';
import { poolServiceForSuite } from '../support/pool-service.js';

/**
 * Residential (premium_proxy) charges as GET /v1/usage and its summary and reconciliation show them
 * (SPEC.md "Engines and prices", "Billing rules"): the residential column when charged, 0 for a
 * failure, the challenge retry free, and the reservation held at the residential price.
 */
let target: ExitTarget;
let held: HeldSite;
let exits: ExitServer[];
const MICRO = 1_000_000;

const usage = async (path: string): Promise<Record<string, any>> => {
  const response = await fetch(`${service.url}${path}`, authed(service.secret));
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, any>;
};

beforeAll(async () => {
  [target, held] = await Promise.all([startExitTarget(), startHeldSite()]);
  exits = await Promise.all([startStaticExit({ address: '127.0.0.100' }), startStaticExit({ address: '127.0.0.101' }), startStaticExit({ address: '127.0.0.102' })]);
});

afterAll(async () => {
  await Promise.all([target?.close(), held?.close(), ...(exits ?? []).map((e) => e.close())]);
});
const service = poolServiceForSuite(() => [
  { id: 'dc', url: exits[0].url, tier: 'datacenter', country: 'NL' },
  { id: 'resi-a', url: exits[1].url, tier: 'residential', country: 'DE' },
  { id: 'resi-b', url: exits[2].url, tier: 'residential', country: 'DE' },
]);
afterAll(() => {
  held?.releaseAll();
});

describe('residential charges in usage', () => {
  it('holds a premium scrape at the residential price while it runs', async () => {
    const running = service.scrape({ url: held.url, premium_proxy: true });
    await until(() => held.arrived(), (n) => n === 1);
    expect((await usage('/v1/usage')).reserved_micro).toBe(10 * MICRO);
    held.releaseAll();
    const response = await running;
    expect(response.status).toBe(200);
    expect(response.headers.get('x-credits-charged')).toBe('10');
  });

  it('counts the residential column for what was charged, nothing for failures, and the challenge retry once', async () => {
    const charged = async (body: Record<string, unknown>): Promise<string | null> => {
      const response = await service.scrape({ url: target.url, ...body });
      await response.arrayBuffer();
      return response.headers.get('x-credits-charged');
    };
    expect(await charged({})).toBe('1');
    // One residential exit serves a vendor challenge: the dispatch retries on the other, free; one charge of 10.
    target.challenge(['127.0.0.101']);
    expect(await charged({ premium_proxy: true })).toBe('10');
    expect(await charged({ premium_proxy: true })).toBe('10');
    // Both challenged: a failure, 0.
    target.challenge(['127.0.0.101', '127.0.0.102']);
    expect(await charged({ premium_proxy: true })).toBe('0');
    // No residential exit in that country: 503, 0.
    const exhausted = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'JP' });
    expect(exhausted.status).toBe(503);

    // Charged so far: 10 (the held scrape) + 1 + 10 + 10.
    const spent = (10 + 1 + 10 + 10) * MICRO;
    const month = await usage('/v1/usage');
    expect(month).toMatchObject({ spent_micro: spent, spent_credits: 31, reserved_micro: 0 });
    const summary = await usage('/v1/usage/summary?group_by=engine');
    // The two failures were admitted (held, then settled at 0); a failed hold carries no serving engine.
    expect(summary.rows).toEqual([
      { engine: 'fetch', requests: 4, billed_requests: 4, credits_charged_micro: spent, credits_charged: 31 },
      { engine: null, requests: 2, billed_requests: 0, credits_charged_micro: 0, credits_charged: 0 },
    ]);
    const reconciliation = await usage('/v1/usage/reconciliation');
    expect(reconciliation).toMatchObject({
      consistent: true,
      ledger: { spent_micro: spent, reserved_micro: 0 },
      holds: { charged_micro: spent, open_count: 0, open_micro: 0 },
      request_log: { records: 4, credits_micro: spent },
    });
  });
});
