import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../gateway/limits/rate-limiter.js';
import { createApiKey, createOrganization, createProject } from '../../lib/store/accounts.js';
import { authed, jsonPost, startEmbedded, type EmbeddedService } from '../support/embedded.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';

let service: EmbeddedService;
let site: TargetSite;

beforeAll(async () => {
  [service, site] = await Promise.all([startEmbedded({ engines: ['fetch'] }), startTargetSite()]);
});
afterAll(async () => {
  await service?.stop();
  await site?.close();
});

async function keyWithLimits(rate: number, concurrency: number): Promise<string> {
  const org = await createOrganization(service.db, 'limited', { monthlyCreditsMicro: 1_000_000_000, rateLimitPerSecond: rate, concurrencyLimit: concurrency });
  const project = await createProject(service.db, org.id, 'limited');
  return (await createApiKey(service.db, { projectId: project.id, name: 'k', environment: 'live', scopes: ['scrape'] })).secret;
}

describe('request rate per key', () => {
  it('answers 429 RATE_LIMITED with Retry-After and the X-RateLimit headers once the bucket is empty', async () => {
    const secret = await keyWithLimits(1, 10);
    const answers = await Promise.all(Array.from({ length: 5 }, () => fetch(`${service.url}/v1/workers`, authed(secret))));
    const ok = answers.filter((r) => r.status === 200);
    const limited = answers.filter((r) => r.status === 429);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    expect(ok[0].headers.get('x-ratelimit-limit')).toBe('1');
    expect(Number(ok[0].headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    const refused = limited[0];
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('x-ratelimit-reset')).toBe('1');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await refused.json()).toMatchObject({ code: 'ERR::LIMIT::RATE_LIMITED', retryable: true, retry_after_seconds: 1 });
  });

  it('refills at the key rate and allows a short burst', () => {
    const limiter = new RateLimiter(2);
    const start = 1_000_000;
    for (let i = 0; i < 10; i += 1) limiter.take('k', 5, start);
    expect(() => limiter.take('k', 5, start)).toThrow(expect.objectContaining({ code: 'ERR::LIMIT::RATE_LIMITED' }));
    expect(limiter.take('k', 5, start + 200).limit).toBe(5);
    expect(() => limiter.take('k', 5, start + 200)).toThrow();
  });
});

describe('concurrency per organization', () => {
  it('answers 429 CONCURRENCY_EXCEEDED with Retry-After: 1 and Concurrency-Remaining: 0 when every slot is busy', async () => {
    const secret = await keyWithLimits(100, 1);
    const slow = fetch(`${service.url}/v1/scrape`, jsonPost(secret, { url: `${site.origin}/slow?ms=1500`, cache: false }));
    const before = site.hits('/slow');
    for (let i = 0; i < 100 && site.hits('/slow') === before; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const refused = await fetch(`${service.url}/v1/scrape`, jsonPost(secret, { url: `${site.origin}/`, cache: false }));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('concurrency-limit')).toBe('1');
    expect(refused.headers.get('concurrency-remaining')).toBe('0');
    expect(await refused.json()).toMatchObject({ code: 'ERR::LIMIT::CONCURRENCY_EXCEEDED', retryable: true });
    const first = await slow;
    expect(first.status).toBe(200);
    expect(first.headers.get('concurrency-limit')).toBe('1');
    expect(first.headers.get('concurrency-remaining')).toBe('0');
  });
});
