import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { createLogger } from '../lib/log.js';
import { createRegistry } from '../lib/metrics.js';
import { packageVersion } from '../lib/version.js';
import { loadOperatorConfig } from './config.js';
import { serveMetrics } from '../lib/metrics-server.js';
import { createOperator } from './operator.js';
import pg from 'pg';
import type { Queryable } from '../lib/store/db.js';
import { readHealthCounts } from '../lib/proxy-pool/health-counts.js';

/**
 * The operator process (`trawler operator`): configuration from the environment, then wiring only.
 * Resolves once the operator runs; SIGTERM/SIGINT stop it and exit the process.
 */
export async function runOperator(env: NodeJS.ProcessEnv): Promise<void> {
  const config = loadOperatorConfig(env);
  const logger = createLogger('trawler-operator', config.LOG_LEVEL);
  const registry = createRegistry('trawler-operator');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();

  // A small read-only pool: only ProxyPool status reads the gateways' shared exit health.
  const healthReader = config.DATABASE_URL ? new pg.Pool({ connectionString: config.DATABASE_URL, max: 2 }) : null;
  const operator = createOperator({
    kubeConfig,
    namespace: config.WATCH_NAMESPACE || undefined,
    defaults: {
      image: config.WORKER_IMAGE ?? `trawler:${packageVersion()}`,
      natsUrl: config.DEFAULT_NATS_URL,
      natsNamespace: config.DEFAULT_NATS_NAMESPACE,
    },
    logger,
    registry,
    concurrency: config.RECONCILE_CONCURRENCY,
    backoff: { baseMs: config.RECONCILE_BACKOFF_BASE_MS, maxMs: config.RECONCILE_BACKOFF_MAX_MS },
    watchRestartDelayMs: config.WATCH_RESTART_DELAY_MS,
    resyncSeconds: config.RESYNC_SECONDS,
    exitHealth: healthReader ? (candidates) => readHealthCounts(queryOf(healthReader), candidates) : undefined,
  });
  // A fixed port: the operator's probes name it, so a taken one is a configuration error to report.
  const server = await serveMetrics(registry, config.METRICS_HOST, config.METRICS_PORT, { ready: operator.ready });
  logger.info({ port: (server.address() as AddressInfo).port }, 'metrics listening');

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: finishing the reconciles under way');
    operator
      .stop()
      .then(
        () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeIdleConnections();
          }),
      )
      .then(() => healthReader?.end())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'unclean stop');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  await operator.start();
}

/** The store's query shape over a plain pg pool (no statement names: pg would take them for a callback). */
function queryOf(pool: pg.Pool): Pick<Queryable, 'query'> {
  return {
    async query<T>(sql: string, params?: unknown[]) {
      const result = await pool.query(sql, params);
      return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
    },
  };
}
