import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonPost } from '../support/embedded.js';
import { until } from '../support/poll.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { DashboardClient, startDashboardService, type DashboardService, type Json } from './harness.js';

let env: DashboardService;
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
  env = await startDashboardService();
  owner = new DashboardClient(env.dashboard.url);
  const me = await owner.signUp('owner@example.com', 'a long enough password', env.setupLink);
  base = `/orgs/${me.organizations[0].id}/projects/${env.service.projectId}`;
  const key = await owner.post(`/orgs/${me.organizations[0].id}/keys`, { name: 'batch', project_id: env.service.projectId, environment: 'test' });
  secret = key.body.secret;
}, 180_000);
afterAll(async () => {
  await env?.stop();
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

  it('lists the project’s jobs with their progress', async () => {
    const listed = await owner.get(`${base}/batch`);
    expect(listed.status).toBe(200);
    expect(listed.body.batches.length).toBe(5);
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
