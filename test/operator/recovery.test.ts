import { afterEach, describe, expect, it } from 'vitest';
import { condition, NAMESPACE, scrapeEngine, startHarness, until, workerPool, type Harness } from './support/operator-run.js';
import type { KObject } from './support/object-store.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('operator: conflicts, refusals, ordering', () => {
  it('retries a Deployment update that met a 409 Conflict and converges', async () => {
    harness = await startHarness();
    const h = harness;
    h.api.store.create('scrapeengines', NAMESPACE, scrapeEngine('fetch', { engine: 'fetch' }));
    h.api.store.create('workerpools', NAMESPACE, workerPool('eu', { engineRef: { name: 'fetch' }, replicas: 1 }));
    await h.settle();
    // Someone else writes the Deployment between the operator's read and its update.
    h.api.beforeNextWrite(
      (method, path) => method === 'PUT' && path.endsWith('/deployments/trawler-eu-fetch'),
      () => {
        const current = h.api.store.get('deployments', NAMESPACE, 'trawler-eu-fetch')!;
        h.api.store.update('deployments', NAMESPACE, 'trawler-eu-fetch', { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, touched: 'yes' } } }, 'main');
      },
    );
    const current = h.api.store.get('workerpools', NAMESPACE, 'eu')!;
    h.api.store.update('workerpools', NAMESPACE, 'eu', { ...current, spec: { ...(current.spec as object), replicas: 4 } }, 'main');
    await h.settle();
    const puts = h.api.requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/deployments/trawler-eu-fetch'));
    expect(puts.map((r) => r.status)).toEqual([409, 200]);
    const deployment = h.api.store.get('deployments', NAMESPACE, 'trawler-eu-fetch')!;
    expect((deployment.spec as { replicas: number }).replicas).toBe(4);
    expect(deployment.metadata.labels?.touched).toBe('yes');
    const metrics = await h.registry.getSingleMetricAsString('trawler_operator_reconcile_total');
    expect(metrics).toMatch(/trawler_operator_reconcile_total\{kind="WorkerPool",result="error"\} 1/);
  });

  it('marks a camoufox engine and its pool Degraded and deploys nothing', async () => {
    harness = await startHarness();
    harness.api.store.create('scrapeengines', NAMESPACE, scrapeEngine('stealth', { engine: 'camoufox' }));
    harness.api.store.create('workerpools', NAMESPACE, workerPool('stealthy', { engineRef: { name: 'stealth' } }));
    await harness.settle();
    const engine = harness.api.store.get('scrapeengines', NAMESPACE, 'stealth');
    expect(condition(engine, 'Degraded')).toMatchObject({ status: 'True', reason: 'EngineNotDeployable' });
    expect(condition(engine, 'Available')).toMatchObject({ status: 'False', reason: 'EngineNotDeployable' });
    const pool = harness.api.store.get('workerpools', NAMESPACE, 'stealthy');
    expect(condition(pool, 'Degraded')).toMatchObject({ status: 'True', reason: 'EngineNotDeployable' });
    expect(condition(pool, 'Degraded')!.message).toContain('camoufox is not deployable');
    expect(harness.api.store.list('deployments', NAMESPACE)).toEqual([]);
  });

  it('reports a pool whose engine does not exist, then deploys it once the engine appears', async () => {
    harness = await startHarness();
    harness.api.store.create('workerpools', NAMESPACE, workerPool('late', { engineRef: { name: 'chromium' } }));
    await harness.settle();
    expect(condition(harness.api.store.get('workerpools', NAMESPACE, 'late'), 'Degraded')).toMatchObject({ status: 'True', reason: 'EngineNotFound' });
    harness.api.store.create('scrapeengines', NAMESPACE, scrapeEngine('chromium', { engine: 'chromium', browser: { headful: true } }));
    await harness.settle();
    const deployment = harness.api.store.get('deployments', NAMESPACE, 'trawler-late-chromium')!;
    const pod = (deployment.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    expect(pod.shareProcessNamespace).toBe(true);
    expect(pod.volumes).toContainEqual({ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: '2Gi' } });
    expect(condition(harness.api.store.get('workerpools', NAMESPACE, 'late'), 'Degraded')).toMatchObject({ status: 'False', reason: 'AsExpected' });
  });

  it('replaces the Deployment when the pool moves to an engine of another kind', async () => {
    harness = await startHarness();
    harness.api.store.create('scrapeengines', NAMESPACE, scrapeEngine('fetch', { engine: 'fetch' }));
    harness.api.store.create('scrapeengines', NAMESPACE, scrapeEngine('light', { engine: 'obscura' }));
    harness.api.store.create('workerpools', NAMESPACE, workerPool('eu', { engineRef: { name: 'fetch' } }));
    await harness.settle();
    const current = harness.api.store.get('workerpools', NAMESPACE, 'eu')!;
    harness.api.store.update('workerpools', NAMESPACE, 'eu', { ...current, spec: { engineRef: { name: 'light' } } }, 'main');
    await harness.settle();
    expect(harness.api.store.list('deployments', NAMESPACE).map((d) => d.metadata.name)).toEqual(['trawler-eu-obscura']);
    expect((harness.api.store.get('scrapeengines', NAMESPACE, 'fetch')!.status as { pools: string[] }).pools).toEqual([]);
    expect((harness.api.store.get('scrapeengines', NAMESPACE, 'light')!.status as { pools: string[] }).pools).toEqual(['eu']);
  });

  it('never runs two reconciles of one object at once', async () => {
    const active = new Map<string, number>();
    let maxPerKey = 0;
    let maxOverall = 0;
    let runs = 0;
    harness = await startHarness({
      async aroundReconcile(key, run) {
        active.set(key, (active.get(key) ?? 0) + 1);
        runs += 1;
        maxPerKey = Math.max(maxPerKey, active.get(key)!);
        maxOverall = Math.max(maxOverall, [...active.values()].reduce((a, b) => a + b, 0));
        try {
          // Yield to the event loop so that events arriving meanwhile find the key running.
          await new Promise((resolve) => setImmediate(resolve));
          await run();
        } finally {
          active.set(key, active.get(key)! - 1);
        }
      },
    });
    const h = harness;
    h.api.store.create('scrapeengines', NAMESPACE, scrapeEngine('fetch', { engine: 'fetch' }));
    for (const name of ['a', 'b', 'c']) h.api.store.create('workerpools', NAMESPACE, workerPool(name, { engineRef: { name: 'fetch' } }));
    await until(() => runs > 0, 'a first reconcile');
    for (let i = 1; i <= 15; i += 1) {
      const current = h.api.store.get('workerpools', NAMESPACE, 'a')!;
      h.api.store.update('workerpools', NAMESPACE, 'a', { ...current, spec: { ...(current.spec as object), replicas: i } } as KObject, 'main');
    }
    await h.settle();
    expect(maxPerKey).toBe(1);
    expect(maxOverall).toBeGreaterThan(1);
    expect((h.api.store.get('deployments', NAMESPACE, 'trawler-a-fetch')!.spec as { replicas: number }).replicas).toBe(15);
  });

  it('relists after its watch expired (410 Gone) and keeps reconciling', async () => {
    harness = await startHarness();
    const h = harness;
    h.api.store.create('scrapeengines', NAMESPACE, scrapeEngine('fetch', { engine: 'fetch' }));
    await h.settle();
    const poolLists = () => h.api.requests.filter((r) => r.method === 'GET' && !r.watch && r.path.endsWith('/workerpools')).length;
    const listsBefore = poolLists();
    h.api.store.compactedBelow = h.api.store.currentRv + 1;
    h.api.dropWatches();
    await until(() => poolLists() > listsBefore, 'a relist of workerpools');
    h.api.store.create('workerpools', NAMESPACE, workerPool('after', { engineRef: { name: 'fetch' } }));
    await h.settle();
    expect(h.api.store.get('deployments', NAMESPACE, 'trawler-after-fetch')).toBeDefined();
  });
});
