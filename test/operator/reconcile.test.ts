import { afterEach, describe, expect, it } from 'vitest';
import type { V1Deployment } from '@kubernetes/client-node';
import { condition, NAMESPACE, NATS_URL, scrapeEngine, startHarness, WORKER_IMAGE, workerPool, type Harness } from './support/operator-run.js';
import type { KObject } from './support/object-store.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const deployment = (h: Harness, name: string) => h.api.store.get('deployments', NAMESPACE, name) as unknown as V1Deployment | undefined;
const pool = (h: Harness, name: string) => h.api.store.get('workerpools', NAMESPACE, name);
const engine = (h: Harness, name: string) => h.api.store.get('scrapeengines', NAMESPACE, name);

async function applyFetchPool(h: Harness, replicas = 2): Promise<void> {
  h.api.store.create('scrapeengines', NAMESPACE, scrapeEngine('fetch', { engine: 'fetch', capacity: 24 }));
  h.api.store.create('workerpools', NAMESPACE, workerPool('eu', { engineRef: { name: 'fetch' }, replicas }));
  await h.settle();
}

/** Reports the Deployment's pods ready, as the Deployment controller would. */
function markReady(h: Harness, name: string, ready: number): void {
  const current = h.api.store.get('deployments', NAMESPACE, name)!;
  const replicas = (current.spec as { replicas: number }).replicas;
  h.api.store.update('deployments', NAMESPACE, name, {
    ...current,
    status: {
      observedGeneration: current.metadata.generation,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: ready,
      availableReplicas: ready,
    },
  } as KObject, 'status');
}

describe('operator against the API server double', () => {
  it('creates the worker Deployment a ScrapeEngine and a WorkerPool ask for', async () => {
    harness = await startHarness();
    await applyFetchPool(harness);
    const d = deployment(harness, 'trawler-eu-fetch');
    expect(d).toBeDefined();
    const poolObject = pool(harness, 'eu')!;
    expect(d!.metadata!.ownerReferences).toEqual([
      { apiVersion: 'trawler.dev/v1alpha1', kind: 'WorkerPool', name: 'eu', uid: poolObject.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(d!.metadata!.labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'trawler-operator', 'trawler.dev/engine': 'fetch', 'trawler.dev/pool': 'eu' });
    expect(d!.spec!.replicas).toBe(2);
    const container = d!.spec!.template.spec!.containers[0]!;
    expect(container.image).toBe(WORKER_IMAGE);
    expect(container.command).toEqual(['node', 'dist/bin/trawler.js', 'worker', '--engine', 'fetch']);
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ NATS_URL, WORKER_POOL: 'eu', WORKER_CAPACITY: '24', METRICS_PORT: '9464', HOST: '0.0.0.0' });
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(container.ports).toEqual([{ name: 'metrics', containerPort: 9464, protocol: 'TCP' }]);
    expect(container.resources?.requests).toEqual({ cpu: '250m', memory: '256Mi' });

    const status = poolObject.status as { observedGeneration: number; selector: string; deploymentName: string };
    expect(status).toMatchObject({ observedGeneration: 1, deploymentName: 'trawler-eu-fetch', selector: 'trawler.dev/pool=eu,trawler.dev/engine=fetch' });
    expect(condition(poolObject, 'Available')).toMatchObject({ status: 'False', reason: 'ReplicasNotReady' });
    expect(condition(engine(harness, 'fetch'), 'Available')).toMatchObject({ status: 'True', reason: 'EngineDeployable' });
    expect((engine(harness, 'fetch')!.status as { pools: string[] }).pools).toEqual(['eu']);
  });

  it('opens the remote-browser relay port of chromium and obscura workers and advertises it by the pod IP', async () => {
    harness = await startHarness();
    harness.api.store.create('scrapeengines', NAMESPACE, scrapeEngine('chromium', { engine: 'chromium', remoteBrowser: { port: 9400, sessions: 6 } }));
    harness.api.store.create('scrapeengines', NAMESPACE, scrapeEngine('obscura', { engine: 'obscura' }));
    harness.api.store.create('workerpools', NAMESPACE, workerPool('render', { engineRef: { name: 'chromium' } }));
    harness.api.store.create('workerpools', NAMESPACE, workerPool('light', { engineRef: { name: 'obscura' } }));
    await harness.settle();
    const chromium = deployment(harness, 'trawler-render-chromium')!.spec!.template.spec!.containers[0]!;
    expect(chromium.ports).toEqual([
      { name: 'metrics', containerPort: 9464, protocol: 'TCP' },
      { name: 'browser-relay', containerPort: 9400, protocol: 'TCP' },
    ]);
    const env = (c: typeof chromium) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));
    expect(env(chromium)).toMatchObject({
      BROWSER_ROUTE_ENABLED: 'true',
      BROWSER_RELAY_HOST: '0.0.0.0',
      BROWSER_RELAY_PORT: '9400',
      BROWSER_RELAY_ADVERTISE_HOST: { fieldRef: { fieldPath: 'status.podIP' } },
      BROWSER_SESSIONS: '6',
    });
    // One BROWSER_RELAY_PORT setting: obscura's relay listens on the next port, and the pod declares that one.
    const obscura = deployment(harness, 'trawler-light-obscura')!.spec!.template.spec!.containers[0]!;
    expect(obscura.ports).toContainEqual({ name: 'browser-relay', containerPort: 9301, protocol: 'TCP' });
    expect(env(obscura)).toMatchObject({ BROWSER_RELAY_PORT: '9300', BROWSER_ROUTE_ENABLED: 'true' });
    expect(env(obscura)).not.toHaveProperty('BROWSER_SESSIONS');
  });

  it('opens no relay port for a fetch engine or a render engine with the remote browser turned off', async () => {
    harness = await startHarness();
    await applyFetchPool(harness);
    harness.api.store.create('scrapeengines', NAMESPACE, scrapeEngine('chromium', { engine: 'chromium', remoteBrowser: { enabled: false } }));
    harness.api.store.create('workerpools', NAMESPACE, workerPool('render', { engineRef: { name: 'chromium' } }));
    await harness.settle();
    const fetch = deployment(harness, 'trawler-eu-fetch')!.spec!.template.spec!.containers[0]!;
    expect((fetch.env ?? []).filter((e) => e.name.startsWith('BROWSER_'))).toEqual([]);
    const chromium = deployment(harness, 'trawler-render-chromium')!.spec!.template.spec!.containers[0]!;
    expect(chromium.ports).toEqual([{ name: 'metrics', containerPort: 9464, protocol: 'TCP' }]);
    expect((chromium.env ?? []).filter((e) => e.name.startsWith('BROWSER_'))).toEqual([{ name: 'BROWSER_ROUTE_ENABLED', value: 'false' }]);
  });

  it('refuses a relay port that is the metrics port', async () => {
    harness = await startHarness();
    harness.api.store.create('scrapeengines', NAMESPACE, scrapeEngine('chromium', { engine: 'chromium', remoteBrowser: { port: 9464 } }));
    harness.api.store.create('workerpools', NAMESPACE, workerPool('render', { engineRef: { name: 'chromium' } }));
    await harness.settle();
    expect(deployment(harness, 'trawler-render-chromium')).toBeUndefined();
    expect(condition(engine(harness, 'chromium'), 'Available')).toMatchObject({ status: 'False', reason: 'InvalidSpec' });
  });

  it('reports the pool Available with readyReplicas once the Deployment is ready', async () => {
    harness = await startHarness();
    await applyFetchPool(harness, 3);
    markReady(harness, 'trawler-eu-fetch', 3);
    await harness.settle();
    const p = pool(harness, 'eu')!;
    expect(p.status).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(condition(p, 'Available')).toMatchObject({ status: 'True', reason: 'MinimumReplicasReady', message: '3/3 workers ready' });
    expect(condition(p, 'Progressing')).toMatchObject({ status: 'False', reason: 'RolloutComplete' });
    expect(condition(p, 'Degraded')).toMatchObject({ status: 'False', reason: 'AsExpected' });
  });

  it('scales the Deployment when the pool is scaled through its scale subresource', async () => {
    harness = await startHarness();
    await applyFetchPool(harness, 2);
    const res = await fetch(`${harness.api.url}/apis/trawler.dev/v1alpha1/namespaces/${NAMESPACE}/workerpools/eu/scale`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'eu', namespace: NAMESPACE }, spec: { replicas: 5 } }),
    });
    expect(res.status).toBe(200);
    await harness.settle();
    expect(deployment(harness, 'trawler-eu-fetch')!.spec!.replicas).toBe(5);
    expect((pool(harness, 'eu')!.status as { observedGeneration: number }).observedGeneration).toBe(2);
  });

  it('rolls the Deployment to a new image when the engine changes', async () => {
    harness = await startHarness();
    await applyFetchPool(harness);
    const before = deployment(harness, 'trawler-eu-fetch')!;
    const current = engine(harness, 'fetch')!;
    harness.api.store.update('scrapeengines', NAMESPACE, 'fetch', { ...current, spec: { ...(current.spec as object), image: 'registry.test/trawler:2.0.0' } }, 'main');
    await harness.settle();
    const after = deployment(harness, 'trawler-eu-fetch')!;
    expect(after.spec!.template.spec!.containers[0]!.image).toBe('registry.test/trawler:2.0.0');
    expect(after.metadata!.generation).toBe((before.metadata!.generation ?? 0) + 1);
    expect(after.metadata!.uid).toBe(before.metadata!.uid);
  });

  it('makes no write when it reconciles an object that is already as desired', async () => {
    harness = await startHarness();
    await applyFetchPool(harness);
    markReady(harness, 'trawler-eu-fetch', 2);
    await harness.settle();
    const writes = harness.api.writes().length;
    const reconciles = () => harness!.api.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/workerpools/eu')).length;
    const readsBefore = reconciles();
    harness.operator.enqueue(`WorkerPool/${NAMESPACE}/eu`);
    harness.operator.enqueue(`ScrapeEngine/${NAMESPACE}/fetch`);
    await harness.settle();
    harness.operator.enqueue(`WorkerPool/${NAMESPACE}/eu`);
    await harness.settle();
    expect(reconciles()).toBe(readsBefore + 2);
    expect(harness.api.writes().length).toBe(writes);
  });

  it('neither recreates the Deployment nor writes status for a pool being deleted', async () => {
    harness = await startHarness();
    harness.api.store.create('scrapeengines', NAMESPACE, scrapeEngine('fetch', { engine: 'fetch' }));
    const held = workerPool('eu', { engineRef: { name: 'fetch' } });
    harness.api.store.create('workerpools', NAMESPACE, { ...held, metadata: { ...held.metadata, finalizers: ['example.com/hold'] } });
    await harness.settle();
    expect(deployment(harness, 'trawler-eu-fetch')).toBeDefined();
    const writes = harness.api.writes().length;

    harness.api.store.delete('workerpools', NAMESPACE, 'eu');
    expect(pool(harness, 'eu')!.metadata.deletionTimestamp).toBeDefined();
    harness.api.store.delete('deployments', NAMESPACE, 'trawler-eu-fetch');
    await harness.settle();
    harness.operator.enqueue(`WorkerPool/${NAMESPACE}/eu`);
    await harness.settle();
    expect(deployment(harness, 'trawler-eu-fetch')).toBeUndefined();
    expect(harness.api.writes().length).toBe(writes);

    const hold = pool(harness, 'eu')!;
    harness.api.store.update('workerpools', NAMESPACE, 'eu', { ...hold, metadata: { ...hold.metadata, finalizers: [] } }, 'main');
    await harness.settle();
    expect(pool(harness, 'eu')).toBeUndefined();
    expect((engine(harness, 'fetch')!.status as { pools: string[] }).pools).toEqual([]);
  });

  it('leaves nothing behind when the WorkerPool is deleted', async () => {
    harness = await startHarness();
    await applyFetchPool(harness);
    harness.api.store.delete('workerpools', NAMESPACE, 'eu');
    await harness.settle();
    expect(harness.api.store.list('deployments', NAMESPACE)).toEqual([]);
    expect(harness.api.store.list('workerpools', NAMESPACE)).toEqual([]);
    expect((engine(harness, 'fetch')!.status as { pools: string[] }).pools).toEqual([]);
  });
});
