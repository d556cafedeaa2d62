import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../gateway/webhooks/signature.js';
import { openParams, overridesBinding, paramsBinding, sealClearBatchParams, sealParams } from '../../lib/store/batch/sealed-params.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startHeldSite } from '../support/held-site.js';
import { startHttpProxy } from '../support/proxies.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { BatchClient, batchServiceOptions, type Json } from './batch-client.js';

interface Delivery {
  headers: http.IncomingHttpHeaders;
  body: string;
}

let site: TargetSite;
let client: BatchClient;
let receiver: http.Server;
let receiverUrl = '';
const deliveries: Delivery[] = [];
let waiting: (() => void) | null = null;
let answers: number[] = [];

const BIG_BYTES = 600_000;
const MEDIUM_BYTES = 500_000;

/** A loopback server that is both the webhook receiver and a source of large pages. */
beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://receiver.invalid');
    if (url.pathname.startsWith('/page/')) {
      const size = Number(url.pathname.split('/')[2]);
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('é'.repeat(size / 2));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answers.shift() ?? 200).end();
      waiting?.();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  if (address === null || typeof address === 'string') throw new Error('no receiver address');
  receiverUrl = `http://127.0.0.1:${address.port}`;
  site = await startTargetSite();
});
afterAll(async () => {
  await site?.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});
const service = embeddedForSuite(batchServiceOptions());
beforeAll(() => {
  client = new BatchClient(service);
});

async function deliveriesReach(count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (deliveries.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${deliveries.length} deliveries arrived`);
    await new Promise<void>((resolve) => {
      waiting = resolve;
      setTimeout(resolve, 200);
    });
  }
}

describe('webhooks', () => {
  it('registers, lists and deletes endpoints; refuses private addresses', async () => {
    const created = await client.post('/v1/webhooks', { url: `${receiverUrl}/other` });
    expect(created.status).toBe(201);
    const endpoint = (await created.json()) as Json;
    expect(endpoint).toMatchObject({ url: `${receiverUrl}/other`, events: ['batch.finished'], secret: expect.stringMatching(/^whsec_/) });
    const list = (await (await client.get('/v1/webhooks')).json()) as Json;
    expect((list.webhooks as Json[]).map((w) => w.id)).toContain(endpoint.id);
    expect(list.webhooks as Json[]).not.toContainEqual(expect.objectContaining({ secret: expect.anything() }));
    const blocked = await client.post('/v1/webhooks', { url: 'http://10.1.2.3/hook' });
    expect(blocked.status).toBe(400);
    expect(((await blocked.json()) as Json).code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    const removed = await fetch(`${service.url}/v1/webhooks/${endpoint.id as string}`, { method: 'DELETE', headers: { authorization: `Bearer ${service.secret}` } });
    expect(removed.status).toBe(204);
    const again = await fetch(`${service.url}/v1/webhooks/${endpoint.id as string}`, { method: 'DELETE', headers: { authorization: `Bearer ${service.secret}` } });
    expect(again.status).toBe(404);
    const useDeleted = await client.post('/v1/batch', { urls: [`${site.origin}/`], webhook_endpoint_id: endpoint.id });
    expect(useDeleted.status).toBe(400);
  });

  it('delivers the finished job object with a verifiable signature, retrying after a 500', async () => {
    const secret = 'a-shared-secret-of-some-length';
    const endpoint = (await (await client.post('/v1/webhooks', { url: `${receiverUrl}/hook`, secret })).json()) as Json;
    answers = [500, 200];
    const job = await client.submit({ urls: [`${site.origin}/`], webhook_endpoint_id: endpoint.id, name: 'hooked' });
    await client.waitTerminal(job.id as string);
    await deliveriesReach(2);
    const [failedTry, delivered] = deliveries;
    expect(delivered.body).toBe(failedTry.body);
    expect(delivered.headers['trawler-event']).toBe('batch.finished');
    expect(delivered.headers['trawler-delivery']).toBe(failedTry.headers['trawler-delivery']);
    expect(verifySignature(secret, delivered.body, String(delivered.headers['trawler-signature']))).toBe(true);
    expect(verifySignature('wrong-secret-wrong-secret', delivered.body, String(delivered.headers['trawler-signature']))).toBe(false);
    expect(JSON.parse(delivered.body)).toMatchObject({ id: job.id, name: 'hooked', status: 'completed', progress: { succeeded: 1 } });
    // The receiver answered; the gateway records the outcome right after.
    const deadline = Date.now() + 60_000;
    let rows = await service.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM webhook_deliveries WHERE job_id = $1', [job.id]);
    while (rows.rows[0]?.status !== 'delivered' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      rows = await service.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM webhook_deliveries WHERE job_id = $1', [job.id]);
    }
    expect(rows.rows).toEqual([{ status: 'delivered', attempts: 2 }]);
  });
});

describe('secrets in a job\'s params', () => {
  it('never shows the proxy password or credential-bearing header values, in answers or webhooks, yet runs with them', async () => {
    const proxy = await startHttpProxy({ auth: { user: 'exit-7', pass: 'pw-SECRET-proxy' } });
    try {
      const endpoint = (await (await client.post('/v1/webhooks', { url: `${receiverUrl}/secrets` })).json()) as Json;
      const headers = { Authorization: 'Bearer SECRET-bearer', 'X-Api-Key': 'SECRET-key', Cookie: 'sid=SECRET-cookie', 'Accept-Language': 'en-GB' };
      const before = deliveries.length;
      const submitted = await client.submit({ urls: [`${site.origin}/echo`], proxy: proxy.url, custom_headers: headers, webhook_endpoint_id: endpoint.id, cache: false });
      const expected = { proxy: `${proxy.url.replace('pw-SECRET-proxy', '[redacted]')}`, custom_headers: { Authorization: '[redacted]', 'X-Api-Key': '[redacted]', Cookie: '[redacted]', 'Accept-Language': 'en-GB' } };
      expect(submitted.params).toMatchObject(expected);
      const id = submitted.id as string;
      const finished = await client.waitTerminal(id);
      expect(finished).toMatchObject({ status: 'completed', progress: { succeeded: 1 }, params: expected });
      const list = await (await client.get('/v1/batch')).text();
      expect(list).toContain(id);
      const retried = await (await client.post(`/v1/batch/${id}/retry`)).text();
      for (const shown of [JSON.stringify(submitted), JSON.stringify(finished), list, retried]) expect(shown).not.toContain('SECRET');
      // The job ran with the real values: through the proxy, with the headers as given.
      expect(proxy.connections()).toBeGreaterThan(0);
      const result = (await client.results(id)).lines[0].result as Json;
      const echoed = JSON.parse(result.content as string) as Json;
      expect(echoed.headers).toMatchObject({ authorization: 'Bearer SECRET-bearer', 'x-api-key': 'SECRET-key', cookie: 'sid=SECRET-cookie' });
      await deliveriesReach(before + 1);
      const delivered = deliveries.slice(before).find((d) => (JSON.parse(d.body) as Json).id === id);
      expect(JSON.parse(delivered!.body)).toMatchObject({ params: expected });
      expect(delivered!.body).not.toContain('SECRET');
      const stored = await service.db.query<{ payload: unknown }>('SELECT payload FROM webhook_deliveries WHERE job_id = $1', [id]);
      expect(JSON.stringify(stored.rows)).not.toContain('SECRET');
    } finally {
      await proxy.close();
    }
  });

  it('stores them sealed: neither the job row nor its item rows hold a secret, and appended items run with theirs', async () => {
    const submitted = await client.submit({ open: true, urls: [`${site.origin}/echo`], proxy: 'http://exit-8:pw-SECRET-job@127.0.0.1:9/', custom_headers: { Authorization: 'Bearer SECRET-job' }, cache: false });
    const id = submitted.id as string;
    const appended = await client.post(`/v1/batch/${id}/items`, { items: [{ url: `${site.origin}/echo?n=1`, proxy: null, custom_headers: { 'X-Auth-Token': 'SECRET-item', 'Accept-Language': 'fr' } }] });
    expect(appended.status).toBe(200);
    await client.post(`/v1/batch/${id}/close`);
    await client.waitTerminal(id);
    const jobRow = await service.db.query<{ params: unknown; sealed_params: string | null }>('SELECT params, sealed_params FROM batch_jobs WHERE id = $1', [id]);
    const itemRows = await service.db.query<{ overrides: unknown; sealed_overrides: string | null }>('SELECT overrides, sealed_overrides FROM batch_items WHERE job_id = $1 ORDER BY seq', [id]);
    expect(JSON.stringify([jobRow.rows, itemRows.rows])).not.toContain('SECRET');
    expect(jobRow.rows[0].params).toMatchObject({ proxy: 'http://exit-8:[redacted]@127.0.0.1:9/', custom_headers: { Authorization: '[redacted]' } });
    expect(itemRows.rows[1].overrides).toMatchObject({ custom_headers: { 'X-Auth-Token': '[redacted]', 'Accept-Language': 'fr' } });
    // The appended item ran with its own header's real value (and without the job's dead proxy).
    const line = (await client.results(id)).lines[1];
    expect(line.status).toBe('succeeded');
    expect((JSON.parse((line.result as Json).content as string) as Json).headers).toMatchObject({ 'x-auth-token': 'SECRET-item', 'accept-language': 'fr' });
  });

  it('seals at start the secrets of rows stored in clear before, and runs them with their values', async () => {
    const proxy = await startHttpProxy({ auth: { user: 'exit-9', pass: 'pw-SECRET-old' } });
    try {
      const submitted = await client.submit({ open: true, urls: [`${site.origin}/echo?n=0`], proxy: proxy.url, cache: false });
      const id = submitted.id as string;
      const oldOverrides = { custom_headers: { Cookie: 'sid=SECRET-old' } };
      expect((await client.post(`/v1/batch/${id}/items`, { items: [{ url: `${site.origin}/echo?n=1`, ...oldOverrides }] })).status).toBe(200);
      await client.waitFor(id, (j) => (j.progress as Json).completed === 2);
      // As a release before sealing stored them: in clear, nothing sealed.
      await service.db.query('UPDATE batch_jobs SET params = $2::jsonb, sealed_params = NULL WHERE id = $1', [id, JSON.stringify({ proxy: proxy.url, cache: false })]);
      await service.db.query('UPDATE batch_items SET overrides = $2::jsonb, sealed_overrides = NULL WHERE job_id = $1 AND seq = 1', [id, JSON.stringify(oldOverrides)]);
      const box = service.gateway.context.box;
      expect(await sealClearBatchParams(service.db, box)).toEqual({ jobs: 1, items: 1 });
      const jobRow = await service.db.query<{ params: Json; sealed_params: string }>('SELECT params, sealed_params FROM batch_jobs WHERE id = $1', [id]);
      const itemRow = await service.db.query<{ overrides: Json; sealed_overrides: string }>('SELECT overrides, sealed_overrides FROM batch_items WHERE job_id = $1 AND seq = 1', [id]);
      expect(JSON.stringify([jobRow.rows, itemRow.rows])).not.toContain('SECRET');
      const organization = (await service.db.query<{ organization_id: string }>('SELECT organization_id FROM batch_jobs WHERE id = $1', [id])).rows[0].organization_id;
      expect(openParams(box, itemRow.rows[0].overrides, itemRow.rows[0].sealed_overrides, overridesBinding(organization, id))).toEqual(oldOverrides);
      expect(await sealClearBatchParams(service.db, service.gateway.context.box)).toEqual({ jobs: 0, items: 0 });
      // An item appended now runs through the job's proxy, opened from the sealed form.
      const before = proxy.connections();
      expect((await client.post(`/v1/batch/${id}/items`, { urls: [`${site.origin}/echo?n=2`] })).status).toBe(200);
      await client.post(`/v1/batch/${id}/close`);
      const finished = await client.waitTerminal(id);
      expect(finished).toMatchObject({ status: 'completed' });
      expect((await client.results(id)).lines[2].status).toBe('succeeded');
      expect(proxy.connections()).toBeGreaterThan(before);
    } finally {
      await proxy.close();
    }
  });

  it('does not open a sealed value copied into another job', async () => {
    const box = service.gateway.context.box;
    const { shown, sealed } = sealParams(box, { proxy: 'http://u:SECRET@127.0.0.1:9/' }, paramsBinding('org-a', 'job-a'));
    expect(openParams(box, shown, sealed, paramsBinding('org-a', 'job-a'))).toEqual({ proxy: 'http://u:SECRET@127.0.0.1:9/' });
    expect(() => openParams(box, shown, sealed, paramsBinding('org-b', 'job-a'))).toThrow(/do not open/);
    expect(() => openParams(box, shown, sealed, paramsBinding('org-a', 'job-b'))).toThrow(/do not open/);
  });
});

describe('result payload bounds', () => {
  it('truncates an item over 524,288 bytes, omits payloads past 2,097,152 per page, and serves full content', async () => {
    const urls = [`${receiverUrl}/page/${BIG_BYTES}`, ...Array.from({ length: 4 }, (_, i) => `${receiverUrl}/page/${MEDIUM_BYTES}?n=${i}`)];
    const job = await client.submit({ urls, response_format: 'text', cache: false });
    await client.waitTerminal(job.id as string);
    const { lines } = await client.results(job.id as string);
    const results = lines.map((line) => line.result as Json);
    expect(results[0]).toMatchObject({ truncated: true });
    expect(Buffer.byteLength(results[0].content as string)).toBeLessThanOrEqual(524_288);
    expect(Buffer.byteLength(results[0].content as string)).toBeGreaterThan(524_280);
    expect(results[0].bytes as number).toBeGreaterThan(524_288);
    const included = results.reduce((sum, r) => sum + (typeof r.content === 'string' ? Buffer.byteLength(r.content) : 0), 0);
    expect(included).toBeLessThanOrEqual(2_097_152);
    const omitted = results.filter((r) => r.omitted === true);
    expect(omitted.length).toBeGreaterThan(0);
    for (const r of omitted) expect(r).not.toHaveProperty('content');
    const lastSeq = lines.findLastIndex((l) => (l.result as Json).omitted === true);
    const full = await client.get(`/v1/batch/${job.id as string}/tasks/${lastSeq}/content`);
    expect(full.status).toBe(200);
    expect(Buffer.byteLength(await full.text())).toBe(lines[lastSeq].bytes);

    await service.db.query('UPDATE batch_items SET body = NULL WHERE job_id = $1 AND seq = 1', [job.id]);
    const after = await client.results(job.id as string, '?limit=2');
    expect(after.lines[1].result).toEqual({ bytes: lines[1].bytes, unavailable: true });
  });

  it('leaves result out while the job runs and lists only the finished prefix', async () => {
    // The middle page answers only when the test releases it, so the job is surely still running.
    const held = await startHeldSite();
    try {
      const job = await client.submit({ urls: [`${site.origin}/`, held.url, `${site.origin}/?x=2`], concurrency: 3, cache: false });
      const id = job.id as string;
      await client.waitFor(id, (j) => (j.progress as Json).completed === 2 && held.arrived() === 1);
      const running = await client.results(id);
      expect(running.lines.map((l) => l.seq)).toEqual([0]);
      expect(running.lines[0]).not.toHaveProperty('result');
      const cursor = running.response.headers.get('x-next-cursor');
      expect(cursor).toBeTruthy();
      held.releaseAll();
      await client.waitTerminal(id);
      const rest = await client.results(id, `?cursor=${cursor as string}`);
      expect(rest.lines.map((l) => l.seq)).toEqual([1, 2]);
    } finally {
      held.releaseAll();
      await held.close();
    }
  });
});
