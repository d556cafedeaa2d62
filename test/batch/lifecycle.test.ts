import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { BatchClient, ledger, ledgerOnceReleased, batchServiceOptions, type Json } from './batch-client.js';

let site: TargetSite;
let client: BatchClient;

beforeAll(async () => {
  site = await startTargetSite();
});
afterAll(async () => {
  await site?.close();
});
const service = embeddedForSuite(batchServiceOptions());
beforeAll(() => {
  client = new BatchClient(service);
});

describe('a batch job from submission to completed', () => {
  it('runs every item, bills only billable successes, and pages the results in seq order', async () => {
    const before = await ledger(service);
    const created = await client.submit({
      name: 'first',
      items: [
        { url: `${site.origin}/`, external_id: 'home' },
        { url: `${site.origin}/status/404` },
        { url: `${site.origin}/status/500` },
        { url: `${site.origin}/static/article.html`, response_format: 'markdown' },
      ],
      cache: false,
    });
    expect(created).toMatchObject({
      name: 'first', status: 'queued', total_items: 4, concurrency: 10, priority: 100, max_attempts: 3,
      estimated_credits: 4, estimated_credits_micro: 4_000_000, params: { cache: false, credit_budget_micro: 4_000_000 },
      status_url: `/v1/batch/${created.id as string}`, results_url: `/v1/batch/${created.id as string}/results`,
    });
    expect(created.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    for (const absent of ['open', 'failure_threshold', 'started_at', 'finished_at', 'cancel_requested_at', 'error_code', 'warnings']) {
      expect(created).not.toHaveProperty(absent);
    }
    const job = await client.waitTerminal(created.id as string);
    expect(job.status).toBe('completed');
    expect(job).toHaveProperty('started_at');
    expect(job).toHaveProperty('finished_at');
    expect(job.progress).toMatchObject({ total: 4, completed: 4, succeeded: 4, failed: 0, remaining: 0, percent_complete: 100, credits_charged: 3, credits_charged_micro: 3_000_000 });
    const after = await ledger(service);
    expect(after.spent - before.spent).toBe(3_000_000);
    expect(after.reserved).toBe(before.reserved);

    const { response, lines } = await client.results(created.id as string);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(response.headers.get('x-next-cursor')).toBeNull();
    expect(response.headers.get('cache-control')).toBeTruthy();
    expect(lines.map((l) => l.seq)).toEqual([0, 1, 2, 3]);
    expect(lines[0]).toMatchObject({ external_id: 'home', status: 'succeeded', http_status: 200, credits_micro: 1_000_000, attempts: 1 });
    expect((lines[0].result as Json).content).toContain('Hello from the target');
    expect(lines[2]).toMatchObject({ http_status: 500, credits_micro: 0 });
    expect((lines[3].result as Json).content).toContain('# The article title');
    expect(lines[1]).not.toHaveProperty('external_id');

    const log = await client.get(`/v1/requests/${lines[0].request_id as string}`);
    expect(log.status).toBe(200);
    expect(await log.json()).toMatchObject({ status: 'success', credits_micro: 1_000_000, url: `${site.origin}/` });

    const content = await client.get(`/v1/batch/${created.id as string}/tasks/0/content`);
    expect(content.status).toBe(200);
    expect(content.headers.get('content-type')).toMatch(/text\/html/);
    expect(await content.text()).toContain('Hello from the target');
    expect((await client.get(`/v1/batch/${created.id as string}/tasks/9/content`)).status).toBe(404);
  });

  it('re-attempts only retryable failures and reports the error object', async () => {
    const created = await client.submit({ urls: ['http://127.0.0.1:1/refused', `${site.origin}/redirect/30`], max_attempts: 2 });
    const job = await client.waitTerminal(created.id as string);
    expect(job.status).toBe('completed');
    expect(job.progress).toMatchObject({ failed: 2, succeeded: 0, credits_charged_micro: 0 });
    const { lines } = await client.results(created.id as string, '?status=FAILED');
    const [refused, redirects] = lines;
    expect(refused.attempts).toBe(2);
    expect(refused.error).toMatchObject({ retryable: true });
    expect(redirects.attempts).toBe(1);
    expect(redirects.error).toMatchObject({ code: 'ERR::UPSTREAM::TOO_MANY_REDIRECTS', retryable: false });
    expect(await ledgerOnceReleased(service, 0)).toMatchObject({ reserved: 0 });
  });

  it('pages with an opaque cursor, a Link preserving limit and status, and bounds payload bytes', async () => {
    const urls = Array.from({ length: 5 }, (_, i) => `${site.origin}/?n=${i}`);
    const created = await client.submit({ urls, cache: false });
    await client.waitTerminal(created.id as string);
    const seen: unknown[] = [];
    let query = '?limit=2&status=Succeeded';
    for (let page = 0; page < 5; page += 1) {
      const { response, lines } = await client.results(created.id as string, query);
      seen.push(...lines.map((l) => l.seq));
      const cursor = response.headers.get('x-next-cursor');
      if (!cursor) break;
      expect(cursor).toMatch(/^[0-9a-f]+$/);
      expect(response.headers.get('link')).toContain('limit=2');
      expect(response.headers.get('link')).toContain('status=Succeeded');
      query = `?limit=2&status=Succeeded&cursor=${cursor}`;
    }
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('rejects out-of-range result queries', async () => {
    const created = await client.submit({ urls: [`${site.origin}/`] });
    for (const query of ['?limit=0', '?limit=5001', '?limit=abc', '?status=queued', '?status=running', '?cursor=zz', '?bogus=1']) {
      const { response } = await client.results(created.id as string, query);
      expect(response.status, query).toBe(400);
    }
  });
});
