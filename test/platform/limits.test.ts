import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryConcurrencyLimiter } from '../../gateway/limits/concurrency.js';
import { MemoryRateLimiter } from '../../gateway/limits/rate-limiter.js';
import { keyFor, newAccount } from '../support/accounts.js';
import { authed, jsonPost } from '../support/embedded.js';
import { startHeldSite, type HeldSite } from '../support/held-site.js';
import { until } from '../support/poll.js';
import { embeddedForSuite } from '../support/suite-service.js';

let site: HeldSite;
// The buckets' clock stands still: refills happen only when a test moves it.
let now = 1_000_000;

beforeAll(async () => {
  site = await startHeldSite();
});
// After-hooks run last registered first: held requests released, then the service stopped, then the site closed.
afterAll(async () => {
  await site?.close();
});
const service = embeddedForSuite(() => ({ engines: ['fetch'], limits: { rateLimiter: new MemoryRateLimiter(2, () => now), concurrency: new MemoryConcurrencyLimiter() } }));
afterAll(() => {
  site?.releaseAll();
});

async function keyWithLimits(rate: number, concurrency: number): Promise<string> {
  const account = await newAccount(service.db, 1_000_000_000, { name: 'limited', rateLimitPerSecond: rate, concurrencyLimit: concurrency });
  return keyFor(service.db, account.projectId, ['scrape'], 'k');
}

describe('request rate per key', () => {
  it('answers 429 RATE_LIMITED with Retry-After and the X-RateLimit headers once the bucket is empty', async () => {
    const secret = await keyWithLimits(1, 10);
    const answers = await Promise.all(Array.from({ length: 5 }, () => fetch(`${service.url}/v1/workers`, authed(secret))));
    const ok = answers.filter((r) => r.status === 200);
    const limited = answers.filter((r) => r.status === 429);
    expect(ok).toHaveLength(2); // a burst of two seconds at one per second
    expect(limited).toHaveLength(3);
    expect(ok.map((r) => r.headers.get('x-ratelimit-limit'))).toEqual(['1', '1']);
    expect(ok.map((r) => r.headers.get('x-ratelimit-remaining')).sort()).toEqual(['0', '1']);
    const refused = limited[0];
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('x-ratelimit-reset')).toBe('1');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await refused.json()).toMatchObject({ code: 'ERR::LIMIT::RATE_LIMITED', retryable: true, retry_after_seconds: 1 });
    now += 1000;
    expect((await fetch(`${service.url}/v1/workers`, authed(secret))).status).toBe(200);
  });

  it('refills at the key rate and allows a short burst', () => {
    const limiter = new MemoryRateLimiter(2);
    const start = 1_000_000;
    for (let i = 0; i < 10; i += 1) limiter.takeAt('k', 5, start);
    expect(() => limiter.takeAt('k', 5, start)).toThrow(expect.objectContaining({ code: 'ERR::LIMIT::RATE_LIMITED' }));
    expect(limiter.takeAt('k', 5, start + 200).limit).toBe(5);
    expect(() => limiter.takeAt('k', 5, start + 200)).toThrow();
  });
});

describe('concurrency per organization', () => {
  it('answers 429 CONCURRENCY_EXCEEDED with Retry-After: 1 and Concurrency-Remaining: 0 when every slot is busy', async () => {
    const secret = await keyWithLimits(100, 1);
    const held = fetch(`${service.url}/v1/scrape`, jsonPost(secret, { url: site.url, cache: false }));
    await until(() => site.arrived(), (count) => count === 1, 30_000);
    const refused = await fetch(`${service.url}/v1/scrape`, jsonPost(secret, { url: site.url, cache: false }));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('concurrency-limit')).toBe('1');
    expect(refused.headers.get('concurrency-remaining')).toBe('0');
    expect(await refused.json()).toMatchObject({ code: 'ERR::LIMIT::CONCURRENCY_EXCEEDED', retryable: true });
    site.releaseAll();
    const first = await held;
    expect(first.status).toBe(200);
    expect(first.headers.get('concurrency-limit')).toBe('1');
    expect(first.headers.get('concurrency-remaining')).toBe('0');
    expect(site.arrived()).toBe(1);
  });
});
