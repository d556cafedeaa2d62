import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../lib/store/accounts.js';
import { authed, jsonPost } from '../support/embedded.js';
import { creditTotals } from '../support/ledger.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';

let site: TargetSite;

beforeAll(async () => {
  site = await startTargetSite();
});
afterAll(async () => {
  await site?.close();
});
const service = embeddedForSuite({ engines: ['fetch'], env: { TEST_MONTHLY_CREDITS: '5' } });

const scrape = (body: Record<string, unknown>, secret = service.secret) => fetch(`${service.url}/v1/scrape`, jsonPost(secret, body));

async function spentMicro(environment = 'live'): Promise<number> {
  const { spent, reserved } = await creditTotals(service.db, environment as 'live' | 'test');
  expect(reserved).toBe(0);
  return spent;
}

async function logEntry(requestId: string | null): Promise<Record<string, unknown>> {
  const response = await fetch(`${service.url}/v1/requests/${requestId}`, authed(service.secret));
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('billing rules on the fetch tier', () => {
  it('charges 1 credit for a 200, 404 or 410 and 0 for any other target status', async () => {
    for (const [status, credits] of [[200, '1'], [404, '1'], [410, '1'], [500, '0'], [403, '0'], [302, '0']] as const) {
      const before = await spentMicro();
      const path = status === 302 ? '/redirect-to?url=/&status=302' : `/status/${status}`;
      const response = await scrape({ url: `${site.origin}${status === 302 ? '/status/302' : path}`, cache: false });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-target-status')).toBe(String(status));
      expect(response.headers.get('x-credits-charged')).toBe(credits);
      expect((await spentMicro()) - before).toBe(Number(credits) * 1_000_000);
    }
  });

  it('bills a status listed in allowed_status_codes', async () => {
    const response = await scrape({ url: `${site.origin}/status/500`, allowed_status_codes: [500], cache: false });
    expect(response.headers.get('x-credits-charged')).toBe('1');
  });

  it('puts the target status on the status line with original_status=true', async () => {
    const response = await scrape({ url: `${site.origin}/status/404`, original_status: true, cache: false });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-target-status')).toBe('404');
  });

  it('answers a bare 403 as HTTP 200 with the body and 0 credits', async () => {
    const response = await scrape({ url: `${site.origin}/bare-403`, cache: false });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-target-status')).toBe('403');
    expect(response.headers.get('x-credits-charged')).toBe('0');
  });

  it('never answers a vendor challenge as a success: 502 CHALLENGE, 0 credits, logged as blocked', async () => {
    const before = await spentMicro();
    const response = await scrape({ url: `${site.origin}/challenge/cloudflare`, cache: false });
    expect(response.status).toBe(502);
    expect(response.headers.get('x-credits-charged')).toBe('0');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ code: 'ERR::UPSTREAM::CHALLENGE', target_status: 403, retryable: true });
    expect((body.diagnostics as { attempts: unknown[] }).attempts.length).toBeGreaterThan(0);
    expect(await spentMicro()).toBe(before);
    const entry = await logEntry(response.headers.get('x-request-id'));
    expect(entry).toMatchObject({ status: 'blocked', error_code: 'UPSTREAM_CHALLENGE', credits_micro: 0, http_status: 403 });
    expect(entry.blocked).toMatchObject({ vendor: expect.stringMatching(/cloudflare/i) });
  });

  it('refuses an out-of-range max_cost with 400 before fetching, at 0 credits', async () => {
    const hits = site.hits('/status/201');
    const response = await scrape({ url: `${site.origin}/status/201`, max_cost: 0 });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-credits-charged')).toBe('0');
    const body = (await response.json()) as { code: string; detail: string };
    expect(body.code).toBe('ERR::REQUEST::INVALID_PARAMETER');
    expect(body.detail).toContain('max_cost');
    expect(site.hits('/status/201')).toBe(hits);
  });

  it('refuses a private target with 400 SSRF_BLOCKED at 0 credits, and logs it as rejected', async () => {
    const response = await scrape({ url: 'http://10.0.0.1/' });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-credits-charged')).toBe('0');
    expect(((await response.json()) as { code: string }).code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    const entry = await logEntry(response.headers.get('x-request-id'));
    expect(entry).toMatchObject({ status: 'rejected', error_code: 'SECURITY_SSRF_BLOCKED', url: 'http://10.0.0.1/', credits_micro: 0 });
  });

  it('warns PROXY_FLAG_IGNORED when an own proxy overrides the pool flags', async () => {
    const response = await scrape({ url: `${site.origin}/`, proxy: 'http://127.0.0.1:9/', premium_proxy: true, cache: false });
    // The proxy is unreachable, so the request fails, but the warning is still reported.
    expect(response.status).toBe(502);
    const body = (await response.json()) as { code: string; warnings?: string[] };
    expect(body.code).toBe('ERR::PROXY::UNREACHABLE');
    expect(body.warnings).toContain('PROXY_FLAG_IGNORED');
  });

  it('records a success with engine, spans, bytes and credits in the request log', async () => {
    const response = await scrape({ url: `${site.origin}/static/article.html`, cache: false });
    const entry = await logEntry(response.headers.get('x-request-id'));
    expect(entry).toMatchObject({
      status: 'success',
      engine: 'fetch',
      http_status: 200,
      credits_micro: 1_000_000,
      url: `${site.origin}/static/article.html`,
      url_host: '127.0.0.1',
      error_code: null,
      proxy: { source: 'direct' },
    });
    const spans = entry.spans as Record<string, number>;
    expect(spans.total_ms).toBeGreaterThanOrEqual(spans.engine_ms);
    expect(entry.bytes_in as number).toBeGreaterThan(0);
    expect(entry.bytes_out as number).toBe(Number((await response.arrayBuffer()).byteLength));
  });
});

describe('cache', () => {
  it('serves a GET result again with Cache-State hit and 0 credits, and cache=false bypasses it', async () => {
    const url = `${site.origin}/static/article.html?cache-test=1`;
    const first = await scrape({ url });
    expect(first.headers.get('cache-state')).toBe('miss');
    expect(first.headers.get('x-credits-charged')).toBe('1');
    const hitsAfterFirst = site.hits('/static/article.html');
    const second = await scrape({ url });
    expect(second.headers.get('cache-state')).toBe('hit');
    expect(second.headers.get('x-credits-charged')).toBe('0');
    expect(await second.text()).toBe(await first.text());
    expect(site.hits('/static/article.html')).toBe(hitsAfterFirst);
    const bypass = await scrape({ url, cache: false });
    expect(bypass.headers.get('cache-state')).toBe('bypass');
    expect(bypass.headers.get('x-credits-charged')).toBe('1');
    expect(site.hits('/static/article.html')).toBe(hitsAfterFirst + 1);
  });

  it('keys the cache on the answer-shaping parameters and never caches non-GET methods', async () => {
    const url = `${site.origin}/static/article.html?cache-test=2`;
    await scrape({ url });
    const markdown = await scrape({ url, response_format: 'markdown' });
    expect(markdown.headers.get('cache-state')).toBe('miss');
    const post = await scrape({ url, method: 'POST' });
    expect(post.headers.get('cache-state')).toBe('bypass');
  });

  it('refuses cache=false with cache_ttl above 0', async () => {
    const response = await scrape({ url: `${site.origin}/`, cache: false, cache_ttl: 60 });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('ERR::REQUEST::INCOMPATIBLE_FLAGS');
  });
});

describe('allowance', () => {
  it('answers 402 QUOTA_EXCEEDED when the dearest cost cannot be held, and lets concurrent requests never overspend', async () => {
    await service.db.query('UPDATE organizations SET concurrency_limit = 100, rate_limit_per_second = 1000');
    // The test ledger's allowance is TEST_MONTHLY_CREDITS (5 here); this key is new, so it reads the new limits.
    const { secret } = await createApiKey(service.db, { projectId: service.projectId, name: 'tight', environment: 'test', scopes: ['scrape'] });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => scrape({ url: `${site.origin}/slow?ms=200&i=${i}`, cache: false }, secret)),
    );
    const charged = responses.map((r) => Number(r.headers.get('x-credits-charged')));
    const refused = responses.filter((r) => r.status === 402);
    expect(charged.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5);
    expect(refused.length).toBeGreaterThanOrEqual(15);
    const body = (await refused[0].json()) as { code: string; retryable: boolean; detail: string };
    expect(body).toMatchObject({ code: 'ERR::LIMIT::QUOTA_EXCEEDED', retryable: false });
    expect(body.detail).toMatch(/resets on \d{4}-\d{2}-\d{2}T/);
    expect(await spentMicro('test')).toBeLessThanOrEqual(5_000_000);
  });
});

describe('holds left by a crash', () => {
  // A store hold (PostgreSQL's kind; the embedded store keeps scrape holds in memory, which a crash drops).
  it('releases the hold of a crashed request at 0 credits once it expires, not before', async () => {
    const { takeStoredHold } = await import('../../lib/store/credits.js');
    const { releaseExpiredHolds } = await import('../../lib/billing/ledger.js');
    const account = {
      organizationId: service.organizationId,
      projectId: service.projectId,
      organizationCreatedAt: new Date(),
      monthlyCreditsMicro: 1_000_000_000,
      environment: 'live' as const,
    };
    const spentBefore = await spentMicro();
    const crashed = await takeStoredHold(service.db, account, 3_000_000, 'crashed-request');
    const reserved = async () =>
      Number((await service.db.query<{ r: number }>("SELECT COALESCE(SUM(reserved_micro), 0) AS r FROM credit_period_totals WHERE environment = 'live'")).rows[0].r);
    expect(await reserved()).toBe(3_000_000);
    expect(await releaseExpiredHolds(service.db, service.gateway.context.ledger)).toBe(0);
    await service.db.query(`UPDATE credit_reservations SET expires_at = now() - interval '1 second' WHERE id = $1`, [crashed.id]);
    expect(await releaseExpiredHolds(service.db, service.gateway.context.ledger)).toBe(1);
    expect(await reserved()).toBe(0);
    expect(await spentMicro()).toBe(spentBefore);
  });
});
