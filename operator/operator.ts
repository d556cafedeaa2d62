import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { Logger } from '../lib/log.js';
import { objectKey, parseObjectKey } from './object-key.js';
import { PROXY_POOL_KIND, SCRAPE_ENGINE_KIND, WORKER_POOL_KIND } from './api-names.js';
import { createCluster } from './cluster.js';
import type { DeploymentDefaults } from './desired-deployment.js';
import { createOperatorMetrics, registerPoolReplicaGauges } from './metrics.js';
import { ReconcileQueue } from './queue.js';
import type { ReconcileContext } from './reconcile-context.js';
import { reconcileEngine } from './reconcile-engine.js';
import { reconcilePool } from './reconcile-pool.js';
import { reconcileProxyPool } from './reconcile-proxy-pool.js';
import { createWatches, type WatchedResource, type Watches } from './watch.js';
import { secretNamesOf } from './proxy-pool-resource.js';

export interface OperatorOptions {
  kubeConfig: KubeConfig;
  /** Namespace to watch; undefined: all namespaces. */
  namespace: string | undefined;
  defaults: DeploymentDefaults;
  logger: Logger;
  registry: Registry;
  concurrency: number;
  backoff: { baseMs: number; maxMs: number };
  watchRestartDelayMs: number;
  /** Seconds between full re-reconciles; 0: never. */
  resyncSeconds: number;
  now?: () => Date;
  /** The gateways' shared exit health for ProxyPool status (the store, when the operator has DATABASE_URL). */
  exitHealth?: ReconcileContext['exitHealth'];
  /** Wraps every reconcile (tests instrument it); must call `run`. */
  aroundReconcile?: (key: string, run: () => Promise<void>) => Promise<void>;
}

export interface Operator {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Every watch has listed once. */
  ready(): boolean;
  enqueue(key: string): void;
  queue: ReconcileQueue;
  watches: Watches;
}

/** Wires watches, the queue and the reconcilers; reads no environment and opens nothing until start(). */
export function createOperator(options: OperatorOptions): Operator {
  const { logger } = options;
  const metrics = createOperatorMetrics(options.registry);
  const cluster = createCluster(options.kubeConfig, (resource, verb) => metrics.writes.inc({ resource, verb }));
  const engineRefs = new Map<string, string>();

  const watches: Watches = createWatches(options.kubeConfig, {
    namespace: options.namespace,
    restartDelayMs: options.watchRestartDelayMs,
    onEvent(resource, type, object) {
      metrics.watchEvents.inc({ resource, type });
      routeEvent(resource, object);
    },
    onRestart(resource, error) {
      metrics.watchRestarts.inc({ resource });
      logger.warn({ resource, err: error }, 'watch failed; restarting it');
    },
  });

  registerPoolReplicaGauges(options.registry, () => watches.cache('workerpools'));

  const poolsUsingEngine = (namespace: string, engineName: string): string[] =>
    watches
      .cache('workerpools')
      .filter((p) => p.metadata?.namespace === namespace && engineRefOf(p) === engineName)
      .map((p) => p.metadata?.name ?? '');

  /**
   * The ProxyPools a Secret event concerns: those whose exits take a credential from it (re-rendered
   * with the new value, or Degraded once it is gone), and the one owning it (its pool file Secret,
   * changed or deleted by hand, is written again).
   */
  const proxyPoolsUsingSecret = (secret: KubernetesObject): string[] => {
    const namespace = secret.metadata?.namespace;
    const name = secret.metadata?.name ?? '';
    const owner = secret.metadata?.ownerReferences?.find((ref) => ref.kind === PROXY_POOL_KIND && ref.controller)?.name;
    const users = watches
      .cache('proxypools')
      .filter((pool) => pool.metadata?.namespace === namespace && secretNamesOf(pool).has(name))
      .map((pool) => pool.metadata?.name ?? '');
    return [...new Set(owner ? [...users, owner] : users)];
  };

  const context = (key: string): ReconcileContext => ({
    cluster,
    defaults: options.defaults,
    logger: logger.child({ key }),
    now: options.now ?? (() => new Date()),
    poolsUsingEngine,
    exitHealth: options.exitHealth,
  });

  const RECONCILERS = { [WORKER_POOL_KIND]: reconcilePool, [SCRAPE_ENGINE_KIND]: reconcileEngine, [PROXY_POOL_KIND]: reconcileProxyPool };

  const reconcile = async (key: string) => {
    const { kind, namespace, name } = parseObjectKey(key);
    const run = () => RECONCILERS[kind](context(key), namespace, name);
    await (options.aroundReconcile ? options.aroundReconcile(key, run) : run());
  };

  const queue = new ReconcileQueue({
    reconcile,
    concurrency: options.concurrency,
    backoff: options.backoff,
    onDepth: (depth) => metrics.queueDepth.set(depth),
    onOutcome(outcome) {
      const kind = parseObjectKey(outcome.key).kind;
      metrics.reconcileSeconds.observe({ kind }, outcome.seconds);
      metrics.reconciles.inc({ kind, result: outcome.ok ? 'success' : 'error' });
      if (!outcome.ok) {
        const { key, attempt, retryInMs, error } = outcome;
        logger.warn({ key, attempt, retry_in_ms: retryInMs, err: error }, 'reconcile failed; will retry');
      }
    },
  });

  /** Engine events fan out to the pools using the engine; pool events to the engines they use, old and new. */
  function routeEvent(resource: WatchedResource, object: KubernetesObject): void {
    const namespace = object.metadata?.namespace ?? '';
    const name = object.metadata?.name ?? '';
    if (resource === 'scrapeengines') {
      queue.enqueue(objectKey(SCRAPE_ENGINE_KIND, namespace, name));
      for (const pool of poolsUsingEngine(namespace, name)) queue.enqueue(objectKey(WORKER_POOL_KIND, namespace, pool));
    } else if (resource === 'proxypools') {
      queue.enqueue(objectKey(PROXY_POOL_KIND, namespace, name));
    } else if (resource === 'secrets') {
      for (const pool of proxyPoolsUsingSecret(object)) queue.enqueue(objectKey(PROXY_POOL_KIND, namespace, pool));
    } else if (resource === 'workerpools') {
      queue.enqueue(objectKey(WORKER_POOL_KIND, namespace, name));
      const poolKey = `${namespace}/${name}`;
      const before = engineRefs.get(poolKey);
      const now = engineRefOf(object);
      if (now) engineRefs.set(poolKey, now);
      for (const engine of new Set([before, now])) {
        if (engine) queue.enqueue(objectKey(SCRAPE_ENGINE_KIND, namespace, engine));
      }
    } else {
      const owner = object.metadata?.ownerReferences?.find((ref) => ref.kind === WORKER_POOL_KIND && ref.controller);
      if (owner) queue.enqueue(objectKey(WORKER_POOL_KIND, namespace, owner.name));
    }
  }

  let resyncTimer: NodeJS.Timeout | undefined;
  const resync = () => {
    for (const resource of ['scrapeengines', 'workerpools', 'proxypools'] as const) {
      for (const object of watches.cache(resource)) routeEvent(resource, object);
    }
  };

  return {
    async start() {
      await watches.start();
      if (options.resyncSeconds > 0) resyncTimer = setInterval(resync, options.resyncSeconds * 1000);
      logger.info({ namespace: options.namespace ?? '(all)' }, 'operator started');
    },
    async stop() {
      if (resyncTimer) clearInterval(resyncTimer);
      await watches.stop();
      await queue.stop();
    },
    ready: () => Object.values(watches.resourceVersions()).every((rv) => rv !== ''),
    enqueue: (key) => queue.enqueue(key),
    queue,
    watches,
  };
}

function engineRefOf(object: KubernetesObject): string | undefined {
  const spec: unknown = (object as { spec?: unknown }).spec;
  if (typeof spec !== 'object' || spec === null || !('engineRef' in spec)) return undefined;
  const ref: unknown = spec.engineRef;
  if (typeof ref !== 'object' || ref === null || !('name' in ref)) return undefined;
  return typeof ref.name === 'string' ? ref.name : undefined;
}
