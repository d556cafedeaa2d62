import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  ListWatch,
  Watch,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { z } from 'zod';
import { API_GROUP, API_VERSION, PROXY_POOL_PLURAL, SCRAPE_ENGINE_PLURAL, WORKER_POOL_PLURAL } from './api-names.js';
import { MANAGED_SELECTOR } from './labels.js';

export type WatchedResource = 'scrapeengines' | 'workerpools' | 'proxypools' | 'secrets' | 'deployments';
export type WatchEventType = 'add' | 'update' | 'delete';

export interface WatchOptions {
  /** Namespace to watch; undefined: all namespaces. */
  namespace: string | undefined;
  restartDelayMs: number;
  onEvent: (resource: WatchedResource, type: WatchEventType, object: KubernetesObject) => void;
  onRestart: (resource: WatchedResource, error: unknown) => void;
}

/**
 * List-and-watch of the resources the operator follows, with their caches. Secrets are watched for
 * the credentials ProxyPools reference (they carry no label of ours, so every Secret of the watched
 * namespaces is listed; the cache holds them as the API server sends them).
 */
export interface Watches {
  /** Lists, then watches, in order: pools, engines, proxy pools, secrets, deployments (so engine events see the pools, secret events the proxy pools). */
  start(): Promise<void>;
  stop(): Promise<void>;
  cache(resource: WatchedResource): readonly KubernetesObject[];
  /** Each watch's last seen resourceVersion ('' until its first list succeeded). */
  resourceVersions(): Record<WatchedResource, string>;
}

const ListSchema = z.object({
  metadata: z.object({ resourceVersion: z.string().optional() }).optional(),
  items: z.array(z.custom<KubernetesObject>((v) => typeof v === 'object' && v !== null)),
});

function asList(raw: unknown): KubernetesListObject<KubernetesObject> {
  const parsed = ListSchema.parse(raw);
  return { metadata: parsed.metadata, items: parsed.items };
}

export function createWatches(kubeConfig: KubeConfig, options: WatchOptions): Watches {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const { namespace } = options;
  const scope = namespace ? `/namespaces/${namespace}` : '';
  const crdPath = (plural: string) => `/apis/${API_GROUP}/${API_VERSION}${scope}/${plural}`;
  const listCustom = (plural: string) => async () =>
    asList(
      namespace
        ? await custom.listNamespacedCustomObject({ group: API_GROUP, version: API_VERSION, namespace, plural })
        : await custom.listClusterCustomObject({ group: API_GROUP, version: API_VERSION, plural }),
    );
  const listDeployments = async () =>
    asList(
      namespace
        ? await apps.listNamespacedDeployment({ namespace, labelSelector: MANAGED_SELECTOR })
        : await apps.listDeploymentForAllNamespaces({ labelSelector: MANAGED_SELECTOR }),
    );

  const listSecrets = async () => asList(namespace ? await core.listNamespacedSecret({ namespace }) : await core.listSecretForAllNamespaces());

  const watch = new Watch(kubeConfig);
  const informers: Record<WatchedResource, ListWatch<KubernetesObject>> = {
    workerpools: new ListWatch(crdPath(WORKER_POOL_PLURAL), watch, listCustom(WORKER_POOL_PLURAL), false),
    scrapeengines: new ListWatch(crdPath(SCRAPE_ENGINE_PLURAL), watch, listCustom(SCRAPE_ENGINE_PLURAL), false),
    proxypools: new ListWatch(crdPath(PROXY_POOL_PLURAL), watch, listCustom(PROXY_POOL_PLURAL), false),
    secrets: new ListWatch(`/api/v1${scope}/secrets`, watch, listSecrets, false),
    deployments: new ListWatch(`/apis/apps/v1${scope}/deployments`, watch, listDeployments, false, MANAGED_SELECTOR),
  };
  const order: WatchedResource[] = ['workerpools', 'scrapeengines', 'proxypools', 'secrets', 'deployments'];
  let stopped = false;
  const restartTimers = new Set<NodeJS.Timeout>();

  for (const resource of order) {
    const informer = informers[resource];
    informer.on('add', (o) => options.onEvent(resource, 'add', o));
    informer.on('update', (o) => options.onEvent(resource, 'update', o));
    informer.on('delete', (o) => options.onEvent(resource, 'delete', o));
    // The client stops a watch on any error but 410 Gone (which it relists itself); start it again later.
    informer.on('error', (error: unknown) => {
      if (stopped) return;
      options.onRestart(resource, error);
      const timer = setTimeout(() => {
        restartTimers.delete(timer);
        if (!stopped) void informer.start();
      }, options.restartDelayMs);
      restartTimers.add(timer);
    });
  }

  return {
    async start() {
      stopped = false;
      for (const resource of order) await informers[resource].start();
    },
    async stop() {
      stopped = true;
      for (const timer of restartTimers) clearTimeout(timer);
      restartTimers.clear();
      await Promise.all(order.map((resource) => informers[resource].stop()));
    },
    cache: (resource) => informers[resource].list(),
    resourceVersions: () => ({
      workerpools: informers.workerpools.latestResourceVersion(),
      scrapeengines: informers.scrapeengines.latestResourceVersion(),
      proxypools: informers.proxypools.latestResourceVersion(),
      secrets: informers.secrets.latestResourceVersion(),
      deployments: informers.deployments.latestResourceVersion(),
    }),
  };
}
