import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrapeEngine, startHarness, workerPool, NAMESPACE, type Harness } from '../operator/support/operator-run.js';
import { jsonPost } from '../support/embedded.js';
import { until } from '../support/poll.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';

/** The value of one series in an exposition, or undefined when the series is absent. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('gateway and worker metrics follow what happens', () => {
  let site: TargetSite;
  beforeAll(async () => {
    site = await startTargetSite();
  });
  afterAll(async () => {
    await site?.close();
  });
  // A long heartbeat period: membership must not expire while a loaded machine delays timers.
  const service = embeddedForSuite({ engines: ['fetch'], env: { HEARTBEAT_INTERVAL_MS: '5000' } });

  it('shows live pool membership per engine, every engine listed', async () => {
    const text = await until(() => service.registry.metrics(), (t) => sample(t, 'trawler_pool_workers', 'engine="fetch"') === 1);
    expect(sample(text, 'trawler_pool_capacity', 'engine="fetch"')).toBe(16);
    expect(sample(text, 'trawler_pool_jobs_in_flight', 'engine="fetch"')).toBe(0);
    expect(sample(text, 'trawler_pool_workers', 'engine="chromium"')).toBe(0);
    expect(sample(text, 'trawler_worker_capacity', 'engine="fetch"')).toBe(16);
    expect(sample(text, 'trawler_batch_items', 'status="queued"')).toBe(0);
  });

  it('counts a scrape, its credits (in credits) and the worker job', async () => {
    const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: `${site.origin}/`, cache: false }));
    expect(response.status, await response.clone().text()).toBe(200);
    const charged = Number(response.headers.get('x-credits-charged'));
    expect(charged).toBeGreaterThan(0);
    const text = await service.registry.metrics();
    expect(sample(text, 'trawler_scrapes_total', 'engine="fetch",outcome="success"')).toBe(1);
    expect(sample(text, 'trawler_worker_jobs_total', 'engine="fetch",outcome="success"')).toBe(1);
    expect(sample(text, 'trawler_credits_charged_total', 'engine="fetch"')).toBe(charged);
  });

  it('counts batch items as scrapes, with the credits their job was charged', async () => {
    const before = await service.registry.metrics();
    const scrapesBefore = sample(before, 'trawler_scrapes_total', 'engine="fetch",outcome="success"') ?? 0;
    const creditsBefore = sample(before, 'trawler_credits_charged_total', 'engine="fetch"') ?? 0;
    const created = await fetch(`${service.url}/v1/batch`, jsonPost(service.secret, { urls: [1, 2, 3].map((i) => `${site.origin}/?item=${i}`), cache: false }));
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    const job = await until(
      async () => (await (await fetch(`${service.url}/v1/batch/${id}`, { headers: { authorization: `Bearer ${service.secret}` } })).json()) as { status: string; progress: { credits_charged_micro: number } },
      (body) => body.status === 'completed',
    );
    const text = await service.registry.metrics();
    expect(sample(text, 'trawler_scrapes_total', 'engine="fetch",outcome="success"')).toBe(scrapesBefore + 3);
    expect(sample(text, 'trawler_credits_charged_total', 'engine="fetch"')).toBe(creditsBefore + job.progress.credits_charged_micro / 1_000_000);
  });
});

describe('the operator reports desired and ready workers per WorkerPool', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  it('follows spec.replicas and readyReplicas, and drops a deleted pool', async () => {
    h.api.store.create('scrapeengines', NAMESPACE, scrapeEngine('fetch', { engine: 'fetch', capacity: 8 }));
    h.api.store.create('workerpools', NAMESPACE, workerPool('eu', { engineRef: { name: 'fetch' }, replicas: 3 }));
    await h.settle();
    const labels = `pool_namespace="${NAMESPACE}",pool="eu",engine="fetch"`;
    let text = await h.registry.metrics();
    expect(sample(text, 'trawler_operator_pool_desired_replicas', labels)).toBe(3);
    expect(sample(text, 'trawler_operator_pool_ready_replicas', labels)).toBe(0);

    const deployment = h.api.store.list('deployments', NAMESPACE)[0]!;
    h.api.store.update('deployments', NAMESPACE, deployment.metadata.name as string, { ...deployment, status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 } }, 'status');
    await h.settle();
    text = await until(() => h.registry.metrics(), (t) => sample(t, 'trawler_operator_pool_ready_replicas', labels) === 2);
    expect(sample(text, 'trawler_operator_pool_desired_replicas', labels)).toBe(3);

    h.api.store.delete('workerpools', NAMESPACE, 'eu');
    await h.settle();
    text = await h.registry.metrics();
    expect(sample(text, 'trawler_operator_pool_desired_replicas', labels)).toBeUndefined();
  });
});
