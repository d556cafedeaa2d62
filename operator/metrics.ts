import type { KubernetesObject } from '@kubernetes/client-node';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export const OPERATOR_METRIC_PREFIX = 'trawler_operator_';

/** The operator's own metrics; labels are bounded (kinds, results, verbs), never object names. */
export function createOperatorMetrics(registry: Registry) {
  const registers = [registry];
  return {
    reconciles: new Counter({
      name: `${OPERATOR_METRIC_PREFIX}reconcile_total`,
      help: 'Reconciles by kind and result (success, error).',
      labelNames: ['kind', 'result'] as const,
      registers,
    }),
    reconcileSeconds: new Histogram({
      name: `${OPERATOR_METRIC_PREFIX}reconcile_duration_seconds`,
      help: 'Duration of one reconcile.',
      labelNames: ['kind'] as const,
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    queueDepth: new Gauge({
      name: `${OPERATOR_METRIC_PREFIX}queue_depth`,
      help: 'Keys waiting to be reconciled, including those waiting for a retry.',
      registers,
    }),
    writes: new Counter({
      name: `${OPERATOR_METRIC_PREFIX}api_writes_total`,
      help: 'Writes to the Kubernetes API by resource and verb.',
      labelNames: ['resource', 'verb'] as const,
      registers,
    }),
    watchEvents: new Counter({
      name: `${OPERATOR_METRIC_PREFIX}watch_events_total`,
      help: 'Watch events received by resource and type (add, update, delete).',
      labelNames: ['resource', 'type'] as const,
      registers,
    }),
    watchRestarts: new Counter({
      name: `${OPERATOR_METRIC_PREFIX}watch_restarts_total`,
      help: 'Watches restarted after an error.',
      labelNames: ['resource'] as const,
      registers,
    }),
  };
}

export type OperatorMetrics = ReturnType<typeof createOperatorMetrics>;

type PoolObject = KubernetesObject & { spec?: { replicas?: unknown }; status?: { engine?: unknown; readyReplicas?: unknown } };

/**
 * Desired and ready workers of every WorkerPool the operator watches, read from its watch cache at
 * each scrape, so a deleted pool's series go away with it. Pools are few (one per engine and tier),
 * which keeps their names bounded enough to be labels; `pool_namespace` avoids the target's `namespace`.
 */
export function registerPoolReplicaGauges(registry: Registry, pools: () => readonly KubernetesObject[]): void {
  const labelNames = ['pool_namespace', 'pool', 'engine'] as const;
  const gauge = (name: string, help: string, value: (pool: PoolObject) => number) =>
    new Gauge({
      name: `${OPERATOR_METRIC_PREFIX}${name}`,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const pool of pools() as readonly PoolObject[]) {
          const engine = typeof pool.status?.engine === 'string' ? pool.status.engine : '';
          this.set({ pool_namespace: pool.metadata?.namespace ?? '', pool: pool.metadata?.name ?? '', engine }, value(pool));
        }
      },
    });
  const count = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
  gauge('pool_desired_replicas', 'Workers a WorkerPool asks for (spec.replicas).', (pool) => count(pool.spec?.replicas, 1));
  gauge('pool_ready_replicas', 'Ready workers of a WorkerPool (status.readyReplicas).', (pool) => count(pool.status?.readyReplicas, 0));
}
