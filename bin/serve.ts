import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Bus } from '../lib/bus/bus.js';
import { MemoryBus } from '../lib/bus/memory-bus.js';
import { NatsBus } from '../lib/bus/nats-bus.js';
import type { Config } from '../lib/config.js';
import { createLogger, type Logger } from '../lib/log.js';
import { createRegistry } from '../lib/metrics.js';
import { DEFAULT_METRICS_PORT, serveMetrics } from '../lib/metrics-server.js';
import type { EngineName } from '../lib/protocol/index.js';
import { bootstrapIfEmpty } from '../lib/store/accounts.js';
import type { Db } from '../lib/store/db.js';
import { openStore } from '../lib/store/open.js';
import { openSealingBox } from '../lib/store/sealing-key.js';
import { databasePoolSize } from '../lib/store/pool-sizing.js';
import { packageVersion } from '../lib/version.js';
import { startGateway } from '../gateway/main.js';
import { startDashboard, type MountedRouter } from '../dashboard/server.js';
import { adoptDefaultKey, setupLink } from '../dashboard/setup.js';
import { startWorkers } from '../worker/main.js';
import { MICRO_PER_CREDIT } from '../lib/billing/prices.js';

export type Role = { gateway: boolean; engines: EngineName[] };

/**
 * Starts the gateway and/or engine workers in this process and stops them on SIGTERM/SIGINT:
 * stop taking work, finish what is held within SHUTDOWN_GRACE_MS, leave the membership, exit.
 */
export async function serve(config: Config, role: Role, name: string, extra: { dashboardRouters?: MountedRouter[] } = {}): Promise<void> {
  const logger = createLogger(name, config.LOG_LEVEL);
  const registry = createRegistry(name);
  const version = packageVersion();
  const bus: Bus = config.NATS_URL ? await NatsBus.connect(config.NATS_URL, name, config.NATS_NAMESPACE) : new MemoryBus();
  let db: Db | null = null;
  const stops: Array<(graceMs: number) => Promise<void>> = [];
  try {
    if (role.engines.length > 0) {
      const workers = await startWorkers({ config, bus, logger, registry, version }, role.engines);
      stops.push((grace) => workers.stop(grace));
      logger.info({ engines: role.engines, transport: bus.transport }, 'workers started');
    }
    if (role.gateway) {
      db = await openStore({
        databaseUrl: config.DATABASE_URL,
        dataDir: config.DATA_DIR,
        pool: { size: databasePoolSize(config), timeoutMs: config.DATABASE_POOL_TIMEOUT_MS },
      });
      const created = await bootstrap(db, config, logger);
      const box = await openSealingBox(db, config, logger, db.kind === 'pglite' && !config.DATABASE_URL);
      const gateway = await startGateway({ config, db, bus, logger, registry, version, box });
      stops.unshift((grace) => gateway.stop(grace));
      // SIGHUP re-reads PROXY_POOLS_FILE (docs/proxy-pools.md); without a pool it is only logged, never a stop.
      process.on('SIGHUP', () => {
        const check = gateway.reloadProxyPools();
        if (check === null || check.result === 'unchanged') logger.info({ proxy_pools_file: check === null ? 'not configured' : 'unchanged' }, 'SIGHUP: nothing to reload');
      });
      process.stderr.write(`Trawler ${version} serving on ${gateway.url} (store: ${db.kind}, bus: ${bus.transport})\n`);
      if (config.DASHBOARD_PORT !== 'off') {
        const dashboard = await startDashboard({ config, db, ledger: gateway.context.ledger, logger, box, apiUrl: gateway.url, routers: extra.dashboardRouters }, config.DASHBOARD_PORT, (port, actual, reason) =>
          logger.warn({ port, actual_port: actual, reason }, `dashboard port ${port} is ${reason}; the dashboard is on port ${actual} instead`),
        );
        stops.unshift(() => dashboard.stop());
        if (created) await adoptDefaultKey(dashboard.context, created.organization.id, created.key.id, created.secret);
        process.stderr.write(`Dashboard on ${dashboard.url}\n`);
        const link = await setupLink(dashboard.context);
        if (link) process.stderr.write(`\nNo dashboard user yet. Open this one-time link to become the owner of the first organization\n(it replaces any link printed before, by this process or another replica):\n\n  ${link}\n\n`);
      }
    }
    await startMetrics(config, role, registry, logger, stops);
  } catch (error) {
    await Promise.allSettled(stops.map((stop) => stop(0)));
    await bus.close();
    await db?.close();
    throw error;
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    for (const stop of stops) await stop(config.SHUTDOWN_GRACE_MS).catch((error: unknown) => logger.error({ err: error }, 'stop failed'));
    await bus.close().catch(() => undefined);
    await db?.close().catch(() => undefined);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** Metrics are an aid, not the service: whatever happens to their port, the process keeps serving. */
async function startMetrics(config: Config, role: Role, registry: Registry, logger: Logger, stops: Array<(graceMs: number) => Promise<void>>) {
  const wanted = config.METRICS_PORT ?? (role.gateway ? DEFAULT_METRICS_PORT.gateway : DEFAULT_METRICS_PORT.worker);
  try {
    const metrics = await serveMetrics(registry, config.HOST, wanted, {
      onMoved: (port, actual, reason) =>
        logger.warn({ port, actual_port: actual, reason }, `metrics port ${port} is ${reason}; metrics are on port ${actual} instead`),
    });
    stops.push(async () => void metrics.close());
    logger.info({ port: (metrics.address() as AddressInfo).port }, 'metrics listening');
  } catch (error) {
    logger.error({ err: error, port: wanted }, 'metrics could not listen on any port; serving without /metrics');
  }
}

async function bootstrap(db: Db, config: Config, logger: Logger) {
  const created = await bootstrapIfEmpty(
    db,
    {
      monthlyCreditsMicro: config.DEFAULT_MONTHLY_CREDITS * MICRO_PER_CREDIT,
      rateLimitPerSecond: config.DEFAULT_RATE_LIMIT_PER_SECOND,
      concurrencyLimit: config.DEFAULT_CONCURRENCY_LIMIT,
    },
    config.TRAWLER_BOOTSTRAP_KEY,
  );
  if (!created) return null;
  logger.info({ organization_id: created.organization.id, project_id: created.project.id, key_id: created.key.id }, 'bootstrapped an empty store');
  if (!config.TRAWLER_BOOTSTRAP_KEY) {
    process.stderr.write(
      `\nCreated organization ${created.organization.id}, project ${created.project.id} and the live key "Default".\n` +
        `Its secret is shown this once; store it now (members can also reveal it in the dashboard):\n\n  ${created.secret}\n\n`,
    );
  }
  return created;
}
