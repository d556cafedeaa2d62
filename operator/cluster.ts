import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1Deployment,
  type V1Secret,
} from '@kubernetes/client-node';
import type { ProxyPoolStatus } from './proxy-pool-resource.js';
import { API_GROUP, API_VERSION, PROXY_POOL_PLURAL, SCRAPE_ENGINE_PLURAL, WORKER_POOL_PLURAL } from './api-names.js';
import { readStoredObject, type StoredObject } from './stored-object.js';
import type { ScrapeEngineStatus, WorkerPoolStatus } from './resource-status.js';

/** The API server refused a write because the object changed since it was read (HTTP 409). */
export class ConflictError extends Error {
  override name = 'ConflictError';
}

export type WriteVerb = 'create' | 'update' | 'delete' | 'patch_status';
export type WriteObserver = (resource: 'deployment' | 'scrapeengine' | 'workerpool' | 'proxypool' | 'secret', verb: WriteVerb) => void;

/** The reads and writes the reconcilers make, each a single REST call. NotFound reads as `undefined`. */
export interface Cluster {
  getEngine(namespace: string, name: string): Promise<StoredObject | undefined>;
  getPool(namespace: string, name: string): Promise<StoredObject | undefined>;
  patchEngineStatus(namespace: string, name: string, status: ScrapeEngineStatus): Promise<void>;
  patchPoolStatus(namespace: string, name: string, status: WorkerPoolStatus): Promise<void>;
  getDeployment(namespace: string, name: string): Promise<V1Deployment | undefined>;
  listDeployments(namespace: string, labelSelector: string): Promise<V1Deployment[]>;
  createDeployment(deployment: V1Deployment): Promise<V1Deployment>;
  /** PUT with the resourceVersion the body carries; a stale one gives ConflictError. */
  replaceDeployment(deployment: V1Deployment): Promise<V1Deployment>;
  /** Deleting what is already gone is not an error. */
  deleteDeployment(namespace: string, name: string): Promise<void>;
  getProxyPool(namespace: string, name: string): Promise<StoredObject | undefined>;
  patchProxyPoolStatus(namespace: string, name: string, status: ProxyPoolStatus): Promise<void>;
  getSecret(namespace: string, name: string): Promise<V1Secret | undefined>;
  createSecret(secret: V1Secret): Promise<void>;
  /** PUT with the resourceVersion the body carries. */
  replaceSecret(secret: V1Secret): Promise<void>;
}

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export function createCluster(kubeConfig: KubeConfig, onWrite: WriteObserver = () => {}): Cluster {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const crd = (namespace: string, plural: string) => ({ group: API_GROUP, version: API_VERSION, namespace, plural });

  const getCustom = (plural: string) => async (namespace: string, name: string) => {
    const raw: unknown = await orUndefined(custom.getNamespacedCustomObject({ ...crd(namespace, plural), name }), `get ${plural} ${namespace}/${name}`);
    return raw === undefined ? undefined : readStoredObject(raw);
  };
  const patchStatus = (plural: string, resource: 'scrapeengine' | 'workerpool' | 'proxypool') => async (namespace: string, name: string, status: object) => {
    await call(custom.patchNamespacedCustomObjectStatus({ ...crd(namespace, plural), name, body: { status } }, MERGE_PATCH), `patch status of ${plural} ${namespace}/${name}`);
    onWrite(resource, 'patch_status');
  };

  return {
    getEngine: getCustom(SCRAPE_ENGINE_PLURAL),
    getPool: getCustom(WORKER_POOL_PLURAL),
    patchEngineStatus: patchStatus(SCRAPE_ENGINE_PLURAL, 'scrapeengine'),
    patchPoolStatus: patchStatus(WORKER_POOL_PLURAL, 'workerpool'),
    getDeployment: (namespace, name) => orUndefined(apps.readNamespacedDeployment({ namespace, name }), `get deployment ${namespace}/${name}`),
    async listDeployments(namespace, labelSelector) {
      const list = await call(apps.listNamespacedDeployment({ namespace, labelSelector }), `list deployments in ${namespace}`);
      return list.items;
    },
    async createDeployment(deployment) {
      const { namespace, name } = nameOf(deployment);
      const created = await call(apps.createNamespacedDeployment({ namespace, body: deployment }), `create deployment ${namespace}/${name}`);
      onWrite('deployment', 'create');
      return created;
    },
    async replaceDeployment(deployment) {
      const { namespace, name } = nameOf(deployment);
      const replaced = await call(apps.replaceNamespacedDeployment({ namespace, name, body: deployment }), `update deployment ${namespace}/${name}`);
      onWrite('deployment', 'update');
      return replaced;
    },
    getProxyPool: getCustom(PROXY_POOL_PLURAL),
    patchProxyPoolStatus: patchStatus(PROXY_POOL_PLURAL, 'proxypool'),
    getSecret: (namespace, name) => orUndefined(core.readNamespacedSecret({ namespace, name }), `get secret ${namespace}/${name}`),
    async createSecret(secret) {
      const { namespace, name } = nameOf(secret);
      await call(core.createNamespacedSecret({ namespace, body: secret }), `create secret ${namespace}/${name}`);
      onWrite('secret', 'create');
    },
    async replaceSecret(secret) {
      const { namespace, name } = nameOf(secret);
      await call(core.replaceNamespacedSecret({ namespace, name, body: secret }), `update secret ${namespace}/${name}`);
      onWrite('secret', 'update');
    },
    async deleteDeployment(namespace, name) {
      await orUndefined(apps.deleteNamespacedDeployment({ namespace, name, propagationPolicy: 'Background' }), `delete deployment ${namespace}/${name}`);
      onWrite('deployment', 'delete');
    },
  };
}

function nameOf(object: V1Deployment | V1Secret): { namespace: string; name: string } {
  const namespace = object.metadata?.namespace;
  const name = object.metadata?.name;
  if (!namespace || !name) throw new Error('an object needs metadata.namespace and metadata.name');
  return { namespace, name };
}

async function call<T>(request: Promise<T>, what: string): Promise<T> {
  try {
    return await request;
  } catch (error) {
    throw describeFailure(error, what);
  }
}

async function orUndefined<T>(request: Promise<T>, what: string): Promise<T | undefined> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof ApiException && error.code === 404) return undefined;
    throw describeFailure(error, what);
  }
}

function describeFailure(error: unknown, what: string): Error {
  if (error instanceof ApiException && error.code === 409) return new ConflictError(`${what}: conflict`, { cause: error });
  const status = error instanceof ApiException ? ` (HTTP ${error.code})` : '';
  return new Error(`${what} failed${status}`, { cause: error });
}
