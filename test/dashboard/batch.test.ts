import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard } from '../../dashboard/server.js';
import { createLogger } from '../../lib/log.js';
import { SecretBox } from '../../lib/secret-box.js';
import { jsonPost } from '../support/embedded.js';
import { until } from '../support/poll.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { DashboardClient, startDashboardService, type Json } from './dashboard-service.js';
import { forSuite } from '../support/suite-service.js';

const env = forSuite(() => startDashboardService());
let site: TargetSite;
let owner: DashboardClient;
let secret: string;
let base: string;

async function submit(body: Json): Promise<string> {
  const response = await fetch(`${env.service.url}/v1/batch`, jsonPost(secret, body));
  expect(response.status).toBe(202);
  return ((await response.json()) as Json).id;
}

const job = async (id: string) => (await owner.get(`${base}/batch/${id}`)).body;

beforeAll(async () => {
  site = await startTargetSite();
  owner = new DashboardClient(env.dashboard.url);
  const me = await owner.signUp('owner@example.com', 'a long enough password', env.setupLink);
  base = `/orgs/${me.organizations[0].id}/projects/${env.service.projectId}`;
  const key = await owner.post(`/orgs/${me.organizations[0].id}/keys`, { name: 'batch', project_id: env.service.projectId, environment: 'test' });
  secret = key.body.secret;
}, 180_000);
afterAll(async () => {
  await site?.close();
});

describe('batch controls through the dashboard', () => {
  it('retries the failed items of a finished job, on the job’s own environment', async () => {
    const id = await submit({ urls: [`${site.origin}/`, 'http://127.0.0.1:1/refused'], max_attempts: 1 });
    const done = await until(() => job(id), (j) => ['completed', 'failed'].includes(j.status), 60_000);
    expect(done).toMatchObject({ environment: 'test', progress: { succeeded: 1, failed: 1 } });
    const retried = await owner.post(`${base}/batch/${id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.items_reset).toBe(1);
    await until(() => job(id), (j) => ['completed', 'failed'].includes(j.status) && j.progress.completed === 2, 60_000);
  });

  it('leaves no request-log records of its own reads and controls (its internal key), only the API client\'s', async () => {
    const id = await submit({ urls: [`${site.origin}/`] });
    await until(() => job(id), (j) => j.status === 'completed', 60_000);
    const apiRead = async () => (await fetch(`${env.service.url}/v1/batch/${id}`, { headers: { authorization: `Bearer ${secret}` } })).headers.get('x-request-id')!;
    const first = await apiRead();
    for (let read = 0; read < 3; read += 1) expect((await owner.get(`${base}/batch/${id}`)).status).toBe(200);
    expect((await owner.post(`${base}/batch/${id}/retry`)).status).toBe(200);
    const last = await apiRead();
    const listed = await until(
      async () => ((await (await fetch(`${env.service.url}/v1/requests?limit=200`, { headers: { authorization: `Bearer ${secret}` } })).json()) as { data: Array<{ id: string }> }).data.map((r) => r.id),
      (ids) => ids.includes(last) && ids.includes(first),
    );
    // Newest first: nothing between the two API reads.
    expect(listed.indexOf(first) - listed.indexOf(last)).toBe(1);
  });

  it('closes an open job, which then completes', async () => {
    const id = await submit({ urls: [`${site.origin}/`], open: true });
    await until(() => job(id), (j) => j.progress.completed === 1, 60_000);
    expect((await job(id)).open).toBe(true);
    const closed = await owner.post(`${base}/batch/${id}/close`);
    expect(closed.status).toBe(200);
    expect(closed.body.open).toBeUndefined();
    await until(() => job(id), (j) => j.status === 'completed', 60_000);
  });

  it('cancels a running job: queued items are cancelled, and a second cancel is a 409', async () => {
    const id = await submit({ urls: Array.from({ length: 6 }, (_, i) => `${site.origin}/slow?ms=3000&i=${i}`), concurrency: 1 });
    const cancelled = await owner.post(`${base}/batch/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(['cancelling', 'cancelled']).toContain(cancelled.body.status);
    const final = await until(() => job(id), (j) => j.status === 'cancelled', 60_000);
    expect(final.progress.cancelled).toBeGreaterThanOrEqual(5);
    const again = await owner.post(`${base}/batch/${id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('ERR::REQUEST::CONFLICT');
  });

  it('downloads every result of a job as one NDJSON attachment', async () => {
    const id = await submit({ urls: [`${site.origin}/`, `${site.origin}/json`, `${site.origin}/static/article.html`] });
    await until(() => job(id), (j) => j.status === 'completed', 60_000);
    const response = await fetch(`${env.dashboard.url}/api${base}/batch/${id}/results`, { headers: { cookie: await sessionCookie() } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toContain(`batch-${id}-results.ndjson`);
    const lines = (await response.text()).trim().split('\n').map((line) => JSON.parse(line) as Json);
    expect(lines).toHaveLength(3);
  });

  it('passes result pages on as they arrive: the first page reaches the browser while the next is still awaited', async () => {
    const id = await submit({ urls: [`${site.origin}/`, `${site.origin}/json`, `${site.origin}/static/article.html`] });
    await until(() => job(id), (j) => j.status === 'completed', 60_000);
    // Between a second dashboard and the gateway: pages of one result each, the later ones held until released.
    let held = 0;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const api = http.createServer((req, res) => {
      const path = (req.url ?? '/').replace('limit=1000', 'limit=1');
      void (async () => {
        if (path.includes('cursor=')) {
          held += 1;
          await released;
        }
        const answer = await fetch(`${env.service.url}${path}`, { headers: { authorization: req.headers.authorization ?? '' } });
        const headers: Record<string, string> = { 'content-type': answer.headers.get('content-type') ?? 'application/json' };
        const cursor = answer.headers.get('x-next-cursor');
        if (cursor) headers['x-next-cursor'] = cursor;
        res.writeHead(answer.status, headers).end(Buffer.from(await answer.arrayBuffer()));
      })();
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const dashboard = await startDashboard(
      { config: env.service.config, db: env.service.db, ledger: env.service.gateway.context.ledger, logger: createLogger('dashboard-test', 'silent'), box: new SecretBox(randomBytes(32)), apiUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`, assetsDir: join(tmpdir(), 'no-assets') },
      0,
    );
    try {
      const cookie = await sessionCookie();
      const received: string[] = [];
      let ended = false;
      const download = new Promise<number>((resolve, reject) => {
        const request = http.get(`${dashboard.url}/api${base}/batch/${id}/results`, { headers: { cookie } }, (res) => {
          res.setEncoding('utf8').on('data', (chunk: string) => received.push(chunk));
          res.on('end', () => {
            ended = true;
            resolve(res.statusCode ?? 0);
          });
        });
        request.on('error', reject);
      });
      await until(() => ({ text: received.join(''), held }), (state) => state.held === 1 && state.text.includes('\n'), 60_000, 20);
      expect(ended).toBe(false);
      expect(received.join('').trim().split('\n')).toHaveLength(1);
      release();
      expect(await download).toBe(200);
      const lines = received.join('').trim().split('\n').map((line) => JSON.parse(line) as Json);
      expect(lines.map((line) => line.seq)).toEqual([0, 1, 2]);
    } finally {
      release();
      await dashboard.stop();
      await new Promise<void>((resolve) => api.close(() => resolve()));
    }
  });

  it('lists the project’s jobs with their progress', async () => {
    const listed = await owner.get(`${base}/batch`);
    expect(listed.status).toBe(200);
    expect(listed.body.batches.length).toBe(6);
    for (const entry of listed.body.batches) expect(entry.progress).toHaveProperty('percent_complete');
  });
});

async function sessionCookie(): Promise<string> {
  const response = await fetch(`${env.dashboard.url}/api/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'owner@example.com', password: 'a long enough password' }),
  });
  return (response.headers.get('set-cookie') ?? '').split(';')[0];
}
