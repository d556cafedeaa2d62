import { afterEach, describe, expect, it } from 'vitest';
import { operatorPermissions } from './support/chart-text.js';
import type { RecordedRequest } from './support/fake-api-server.js';
import { NAMESPACE, proxyPool, scrapeEngine, startHarness, workerPool, type Harness } from './support/operator-run.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const METHOD_VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** The RBAC permission (`group resource verb`) a request of the operator needs. */
function permissionOf(request: RecordedRequest): string {
  // The core group (`/api/v1/...`) is the empty group, written `core` here.
  const path = request.path.replace(/^\/api\/v1\//, '/apis/core/v1/');
  const match = /^\/apis\/([^/]+)\/[^/]+(?:\/namespaces\/[^/]+)?\/([^/]+)(?:\/([^/]+)(?:\/([^/]+))?)?$/.exec(path);
  if (!match) throw new Error(`unexpected request path ${request.path}`);
  const [, group, plural, name, sub] = match;
  const verb = request.method === 'GET' ? (request.watch ? 'watch' : name ? 'get' : 'list') : METHOD_VERBS[request.method];
  return `${group} ${plural}${sub ? `/${sub}` : ''} ${verb}`;
}

describe('operator RBAC in the chart', () => {
  it('allows every call the operator makes, and grants nothing it does not use', async () => {
    harness = await startHarness();
    const store = harness.api.store;
    store.create('scrapeengines', NAMESPACE, scrapeEngine('fetch', { engine: 'fetch' }));
    store.create('scrapeengines', NAMESPACE, scrapeEngine('light', { engine: 'obscura' }));
    store.create('workerpools', NAMESPACE, workerPool('eu', { engineRef: { name: 'fetch' }, replicas: 1 }));
    await harness.settle();
    const scaled = store.get('workerpools', NAMESPACE, 'eu')!;
    store.update('workerpools', NAMESPACE, 'eu', { ...scaled, spec: { engineRef: { name: 'fetch' }, replicas: 2 } }, 'main');
    await harness.settle();
    const moved = store.get('workerpools', NAMESPACE, 'eu')!;
    store.update('workerpools', NAMESPACE, 'eu', { ...moved, spec: { engineRef: { name: 'light' }, replicas: 2 } }, 'main');
    await harness.settle();
    // A ProxyPool with a credential Secret, then a change that rewrites its pool file Secret.
    store.create('secrets', NAMESPACE, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'exits' }, data: { pass: Buffer.from('p').toString('base64') } } as never);
    const exit = { url: 'http://10.0.0.5:3128', tier: 'datacenter', country: 'DE', passwordSecretRef: { name: 'exits', key: 'pass' } };
    store.create('proxypools', NAMESPACE, proxyPool('main', { exits: [exit] }));
    await harness.settle();
    const pool = store.get('proxypools', NAMESPACE, 'main')!;
    store.update('proxypools', NAMESPACE, 'main', { ...pool, spec: { exits: [{ ...exit, country: 'FR' }] } }, 'main');
    await harness.settle();

    const used = new Set(harness.api.requests.map(permissionOf));
    // Setting blockOwnerDeletion on an owner reference needs `update` on the owner's finalizers.
    for (const d of [...store.list('deployments', NAMESPACE), ...store.list('secrets', NAMESPACE)]) {
      for (const ref of d.metadata.ownerReferences ?? []) {
        if ((ref as { blockOwnerDeletion?: boolean }).blockOwnerDeletion) used.add(`trawler.dev ${ref.kind.toLowerCase()}s/finalizers update`);
      }
    }
    expect([...used].sort()).toEqual(operatorPermissions());
  });
});
