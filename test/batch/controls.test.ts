import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHeldSite } from '../support/held-site.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { BatchClient, expectTotalsMatchItems, ledger, ledgerOnceReleased, batchServiceOptions, type Json } from './batch-client.js';
import { keyFor, newAccount } from '../support/accounts.js';
import { problemOf } from '../support/answers.js';
import { embeddedForSuite } from '../support/suite-service.js';

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

/** A key of a new organization with `monthlyCredits` a month. */
async function keyWithCredits(monthlyCredits: number, scopes: ('batch' | 'scrape')[] = ['batch']): Promise<string> {
  const account = await newAccount(service.db, monthlyCredits * 1_000_000, { name: `org-${monthlyCredits}-${Math.random()}`, rateLimitPerSecond: 100, concurrencyLimit: 10 });
  return keyFor(service.db, account.projectId, scopes, 'k');
}

describe('submission validation', () => {
  it.each([
    [{ urls: ['https://a.example/'], items: [{ url: 'https://b.example/' }] }, 400, 'ERR::REQUEST::INCOMPATIBLE_FLAGS', ''],
    [{ name: 'none' }, 400, 'ERR::REQUEST::MISSING_PARAMETER', ''],
    [{ urls: [] }, 400, 'ERR::REQUEST::MISSING_PARAMETER', ''],
    [{ urls: ['https://a.example/'], url: 'https://a.example/' }, 400, 'ERR::REQUEST::INVALID_PARAMETER', 'url'],
    [{ urls: ['https://a.example/'], bogus: 1 }, 400, 'ERR::REQUEST::INVALID_PARAMETER', 'bogus'],
    [{ urls: ['https://a.example/'], priority: 1001 }, 400, 'ERR::REQUEST::INVALID_PARAMETER', 'priority'],
    [{ urls: ['https://a.example/'], max_attempts: 0 }, 400, 'ERR::REQUEST::INVALID_PARAMETER', 'max_attempts'],
    [{ urls: ['https://a.example/'], max_attempts: 11 }, 400, 'ERR::REQUEST::INVALID_PARAMETER', 'max_attempts'],
    [{ urls: ['https://a.example/'], failure_threshold: 0 }, 400, 'ERR::REQUEST::INVALID_PARAMETER', 'failure_threshold'],
    [{ urls: ['https://a.example/'], credit_budget: -1 }, 400, 'ERR::REQUEST::INVALID_PARAMETER', 'credit_budget'],
    [{ urls: ['https://a.example/'], webhook_endpoint_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }, 400, 'ERR::REQUEST::INVALID_PARAMETER', 'webhook_endpoint_id'],
    [{ urls: ['https://a.example/', 'http://10.0.0.1/'] }, 400, 'ERR::SECURITY::SSRF_BLOCKED', 'Item 1:'],
    [{ items: [{ url: 'https://a.example/' }, { url: 'https://a.example/', wait: 100 }] }, 400, 'ERR::REQUEST::INCOMPATIBLE_FLAGS', 'Item 1:'],
    [{ items: [{ url: 'https://a.example/', nope: true }] }, 400, 'ERR::REQUEST::INVALID_PARAMETER', 'Item 0: nope'],
    [{ items: [{ url: 'https://a.example/' }, { external_id: 'x' }] }, 400, 'ERR::REQUEST::MISSING_PARAMETER', 'Item 1: url'],
    [{ items: [{ url: 'https://a.example/', external_id: 'x'.repeat(1000), custom_headers: { a: 'b'.repeat(8000) } }] }, 400, 'ERR::REQUEST::INVALID_PARAMETER', 'Item 0:'],
    [{ urls: ['https://a.example/'], custom_headers: { big: 'x'.repeat(70_000) } }, 400, 'ERR::REQUEST::INVALID_PARAMETER', '65536'],
    [{ urls: Array.from({ length: 10_001 }, (_, i) => `https://a.example/${i}`) }, 400, 'ERR::REQUEST::INVALID_PARAMETER', '10000'],
  ])('%#: refuses a bad body with the right code and nothing created', async (body, status, code, detail) => {
    const before = await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM batch_jobs');
    const response = await client.post('/v1/batch', body);
    expect(response.status).toBe(status);
    const json = await problemOf(response);
    expect(json.code).toBe(code);
    expect(json.detail as string).toContain(detail);
    const after = await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM batch_jobs');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const response = await client.post('/v1/batch', { urls: ['https://a.example/'], name: 'x'.repeat(1_100_000) });
    expect(response.status).toBe(413);
    expect((await problemOf(response)).code).toBe('ERR::REQUEST::PAYLOAD_TOO_LARGE');
  });

  it('clamps concurrency with a warning on create only, and keeps item overrides over job defaults', async () => {
    const created = await client.submit({ urls: [`${site.origin}/`], concurrency: 80, open: true, failure_threshold: 5, priority: 0 });
    expect(created).toMatchObject({ concurrency: 50, open: true, failure_threshold: 5, priority: 0, params: { credit_budget_micro: null } });
    expect(created.warnings).toEqual([expect.stringContaining('50')]);
    const read = await client.job(created.id as string);
    expect(read).not.toHaveProperty('warnings');
    const low = await client.submit({ urls: [`${site.origin}/`], concurrency: 0 });
    expect(low.concurrency).toBe(1);
    expect(low).not.toHaveProperty('warnings');
    // Let both jobs' items finish here, so their charges never land inside a later test's ledger window.
    for (const id of [created.id, low.id]) await client.waitFor(id as string, (job) => (job.progress as Json).completed === 1);
  });

  it('needs the batch scope and a JSON body', async () => {
    const scrapeOnly = await keyWithCredits(10, ['scrape']);
    const denied = await new BatchClient(service, scrapeOnly).post('/v1/batch', { urls: [`${site.origin}/`] });
    expect(denied.status).toBe(403);
    expect((await problemOf(denied)).code).toBe('ERR::AUTH::INSUFFICIENT_SCOPE');
    const text = await fetch(`${service.url}/v1/batch`, { method: 'POST', headers: { authorization: `Bearer ${service.secret}`, 'content-type': 'text/plain' }, body: 'x' });
    expect(text.status).toBe(400);
  });
});

describe('credits', () => {
  it('answers 402 on submit when the allowance cannot hold every item, creating nothing', async () => {
    const secret = await keyWithCredits(2);
    const poor = new BatchClient(service, secret);
    const response = await poor.post('/v1/batch', { urls: [1, 2, 3].map((i) => `${site.origin}/?p=${i}`) });
    expect(response.status).toBe(402);
    expect((await problemOf(response)).code).toBe('ERR::LIMIT::QUOTA_EXCEEDED');
    const list = (await (await poor.get('/v1/batch')).json()) as Json;
    expect(list.batches).toEqual([]);
  });

  it('holds appended items (402 adds nothing, X-Request-Cost otherwise) and refuses appends to a closed job', async () => {
    const secret = await keyWithCredits(3);
    const poor = new BatchClient(service, secret);
    const created = await poor.submit({ urls: [`${site.origin}/?a=1`], open: true });
    const appended = await poor.post(`/v1/batch/${created.id as string}/items`, { items: [{ url: `${site.origin}/?a=2`, external_id: 'two' }], concurrency: 3 });
    expect(appended.status).toBe(200);
    expect(appended.headers.get('x-request-cost')).toBe('1');
    const body = (await appended.json()) as Json;
    expect(body).toMatchObject({ items_added: 1, items_dispatched: 1, job: { total_items: 2, estimated_credits: 1, concurrency: 10 } });
    const refused = await poor.post(`/v1/batch/${created.id as string}/items`, { urls: [`${site.origin}/?a=3`, `${site.origin}/?a=4`] });
    expect(refused.status).toBe(402);
    expect((await poor.job(created.id as string)).total_items).toBe(2);
    const running = await poor.waitFor(created.id as string, (job) => (job.progress as Json).completed === 2);
    expect(running.status).toBe('running');
    const closed = await poor.post(`/v1/batch/${created.id as string}/close`);
    expect(closed.status).toBe(200);
    expect(await closed.json()).not.toHaveProperty('open');
    expect((await poor.post(`/v1/batch/${created.id as string}/close`)).status).toBe(200);
    const late = await poor.post(`/v1/batch/${created.id as string}/items`, { urls: [`${site.origin}/?a=5`] });
    expect(late.status).toBe(409);
    expect((await poor.waitTerminal(created.id as string)).status).toBe('completed');
    const { lines } = await poor.results(created.id as string);
    expect(lines.map((l) => [l.seq, l.external_id])).toEqual([[0, undefined], [1, 'two']]);
  });

  it('validates an append\'s top-level scrape parameters as a create does, and ignores its run controls whatever their value', async () => {
    const created = await client.submit({ urls: [`${site.origin}/?v=1`], open: true, name: '' });
    expect(created).not.toHaveProperty('name');
    const id = created.id as string;
    for (const [flags, code] of [
      [{ screenshot: true }, 'ERR::REQUEST::CAPABILITY_UNSUPPORTED'],
      [{ wait: 100 }, 'ERR::REQUEST::INCOMPATIBLE_FLAGS'],
      [{ headless: false }, 'ERR::REQUEST::CAPABILITY_UNSUPPORTED'],
    ] as const) {
      const refused = await client.post(`/v1/batch/${id}/items`, { urls: [`${site.origin}/?v=2`], ...flags });
      expect(refused.status, JSON.stringify(flags)).toBe(400);
      expect((await problemOf(refused)).code).toBe(code);
    }
    expect((await client.job(id)).total_items).toBe(1);
    const ignored = await client.post(`/v1/batch/${id}/items`, {
      urls: [`${site.origin}/?v=3`],
      name: 42, concurrency: 500, priority: 5000, max_attempts: 99, failure_threshold: 0, credit_budget: 0, webhook_endpoint_id: 'bad', open: false,
    });
    expect(ignored.status).toBe(200);
    const job = ((await ignored.json()) as Json).job as Json;
    expect(job).toMatchObject({ total_items: 2, concurrency: 10, priority: 100, max_attempts: 3, open: true });
    expect(job).not.toHaveProperty('name');
    expect((await client.post(`/v1/batch/${id}/close`)).status).toBe(200);
    expect((await client.waitTerminal(id)).status).toBe('completed');
  });

  it('skips items that would pass credit_budget', async () => {
    const before = await ledger(service);
    const created = await client.submit({ urls: [1, 2, 3, 4].map((i) => `${site.origin}/?b=${i}`), credit_budget: 2, concurrency: 1, cache: false });
    const job = await client.waitTerminal(created.id as string);
    expect(job).toMatchObject({ status: 'completed', params: { credit_budget_micro: 2_000_000 } });
    expect(job.progress).toMatchObject({ succeeded: 2, skipped: 2, credits_charged_micro: 2_000_000 });
    const { lines } = await client.results(created.id as string, '?status=skipped');
    expect(lines.map((l) => [l.seq, l.attempts, l.credits_micro])).toEqual([[2, 0, 0], [3, 0, 0]]);
    await expectTotalsMatchItems(service.db, created.id as string);
    const after = await ledgerOnceReleased(service, before.reserved);
    expect(after.spent - before.spent).toBe(2_000_000);
    expect(after.reserved).toBe(before.reserved);
  });

  it('fails the job at failure_threshold and cancels what is left', async () => {
    const urls = ['http://127.0.0.1:1/a', 'http://127.0.0.1:1/b', ...Array.from({ length: 4 }, (_, i) => `${site.origin}/?f=${i}`)];
    const created = await client.submit({ urls, failure_threshold: 2, concurrency: 1, max_attempts: 1 });
    const job = await client.waitTerminal(created.id as string);
    expect(job).toMatchObject({ status: 'failed', error_code: 'FAILURE_THRESHOLD_REACHED' });
    expect(job.error_message).toEqual(expect.any(String));
    expect(job.progress).toMatchObject({ failed: 2, cancelled: 4, succeeded: 0 });
    await expectTotalsMatchItems(service.db, created.id as string);
    expect(await ledgerOnceReleased(service, 0)).toMatchObject({ reserved: 0 });
  });

  it('retry re-holds failed items (402 resets nothing), keeps attempts, and runs them again', async () => {
    const secret = await keyWithCredits(1);
    const poor = new BatchClient(service, secret);
    const created = await poor.submit({ urls: ['http://127.0.0.1:1/x'], max_attempts: 1 });
    await poor.waitTerminal(created.id as string);
    // The failed item's hold goes back on a dispatcher pass after the job ends; wait for it.
    expect((await ledgerOnceReleased(service, 0)).reserved).toBe(0);
    // Spend the allowance elsewhere so the re-hold cannot fit.
    await service.db.query(`UPDATE credit_periods SET spent_micro = 1000000 WHERE organization_id = (SELECT organization_id FROM batch_jobs WHERE id = $1)`, [created.id]);
    const refused = await poor.post(`/v1/batch/${created.id as string}/retry`);
    expect(refused.status).toBe(402);
    expect(((await poor.job(created.id as string)).progress as Json).failed).toBe(1);
    await expectTotalsMatchItems(service.db, created.id as string);
    await service.db.query(`UPDATE credit_periods SET spent_micro = 0 WHERE organization_id = (SELECT organization_id FROM batch_jobs WHERE id = $1)`, [created.id]);
    const retried = await poor.post(`/v1/batch/${created.id as string}/retry`);
    expect(retried.status).toBe(200);
    const body = (await retried.json()) as Json;
    expect(body).toMatchObject({ items_reset: 1, items_dispatched: 1, job: { status: 'queued' } });
    expect(body.job).not.toHaveProperty('finished_at');
    await expectTotalsMatchItems(service.db, created.id as string);
    const again = await poor.waitTerminal(created.id as string);
    expect(again.status).toBe('completed');
    const { lines } = await poor.results(created.id as string);
    expect(lines[0]).toMatchObject({ status: 'failed', attempts: 2 });
    const noop = (await (await poor.post(`/v1/batch/${created.id as string}/retry`)).json()) as Json;
    expect(noop.items_reset).toBe(1);
  });
});

describe('cancel, list, ids and tenants', () => {
  it('cancels into cancelling (202), is idempotent, ends cancelled, then 409', async () => {
    // Pages answered only when the test says: the first item is leased and running when the cancel lands.
    const held = await startHeldSite();
    const created = await client.submit({ urls: Array.from({ length: 30 }, (_, i) => `${held.url}?c=${i}`), concurrency: 1 });
    await client.waitFor(created.id as string, (job) => job.status === 'running' && held.arrived() === 1);
    const first = await client.post(`/v1/batch/${created.id as string}/cancel`);
    expect(first.status).toBe(202);
    const body = (await first.json()) as Json;
    expect(body.status).toBe('cancelling');
    expect(body).toHaveProperty('cancel_requested_at');
    expect((await client.post(`/v1/batch/${created.id as string}/cancel`)).status).toBe(202);
    // With an item running, the job stays `cancelling` until that item drains.
    expect((await client.job(created.id as string)).status).toBe('cancelling');
    held.releaseAll();
    const job = await client.waitTerminal(created.id as string);
    await held.close();
    expect(job.status).toBe('cancelled');
    expect((job.progress as Json).cancelled).toBeGreaterThanOrEqual(29);
    expect(held.arrived()).toBe(1);
    const again = await client.post(`/v1/batch/${created.id as string}/cancel`);
    expect(again.status).toBe(409);
    expect((await problemOf(again)).code).toBe('ERR::REQUEST::CONFLICT');
    expect(await ledgerOnceReleased(service, 0)).toMatchObject({ reserved: 0 });
  });

  it('lists newest first with a cursor and a case-insensitive status filter; bad queries are 400', async () => {
    const secret = await keyWithCredits(100);
    const own = new BatchClient(service, secret);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await own.submit({ urls: [`${site.origin}/?l=${i}`] })).id as string);
    const first = (await (await own.get('/v1/batch?limit=2')).json()) as Json;
    expect((first.batches as Json[]).map((b) => b.id)).toEqual([ids[2], ids[1]]);
    const second = (await (await own.get(`/v1/batch?limit=2&cursor=${first.next_cursor as string}`)).json()) as Json;
    expect((second.batches as Json[]).map((b) => b.id)).toEqual([ids[0]]);
    expect(second).not.toHaveProperty('next_cursor');
    await own.waitTerminal(ids[2]);
    const done = (await (await own.get('/v1/batch?status=COMPLETED')).json()) as Json;
    expect((done.batches as Json[]).map((b) => b.id)).toContain(ids[2]);
    for (const query of ['limit=0', 'limit=201', 'status=finished', 'cursor=nonsense', 'extra=1']) {
      expect((await own.get(`/v1/batch?${query}`)).status, query).toBe(400);
    }
  });

  it('answers 404 for malformed ids and for another tenant\'s job; accepts the UUID form', async () => {
    const created = await client.submit({ urls: [`${site.origin}/`] });
    const id = created.id as string;
    const other = new BatchClient(service, await keyWithCredits(10));
    for (const path of [`/v1/batch/${id}`, `/v1/batch/${id}/results`, `/v1/batch/${id}/cancel`]) {
      const response = path.endsWith('cancel') ? await other.post(path) : await other.get(path);
      expect(response.status, path).toBe(404);
      expect((await problemOf(response)).code).toBe('ERR::REQUEST::NOT_FOUND');
    }
    expect((await client.get('/v1/batch/not-an-id')).status).toBe(404);
    const { uuidFromUlid } = await import('../../gateway/request-log/record-id.js');
    expect((await client.get(`/v1/batch/${uuidFromUlid(id)}`)).status).toBe(200);
  });

  it('answers 410 for results past retention while the job stays readable', async () => {
    const created = await client.submit({ urls: [`${site.origin}/`] });
    await client.waitTerminal(created.id as string);
    await service.db.query(`UPDATE batch_jobs SET results_expire_at = now() - interval '1 second' WHERE id = $1`, [created.id]);
    const response = await client.get(`/v1/batch/${created.id as string}/results`);
    expect(response.status).toBe(410);
    expect((await problemOf(response)).code).toBe('ERR::REQUEST::BEYOND_RETENTION');
    expect((await client.get(`/v1/batch/${created.id as string}/tasks/0/content`)).status).toBe(410);
    expect((await client.get(`/v1/batch/${created.id as string}`)).status).toBe(200);
  });
});
