import type { Registry } from 'prom-client';
import { MemoryBus } from '../../lib/bus/memory-bus.js';
import { loadConfig, type Config } from '../../lib/config.js';
import { createLogger } from '../../lib/log.js';
import { createRegistry } from '../../lib/metrics.js';
import type { EngineName } from '../../lib/protocol/index.js';
import { bootstrapIfEmpty } from '../../lib/store/accounts.js';
import type { Db } from '../../lib/store/db.js';
import { openStore } from '../../lib/store/open.js';
import type { GatewayLimits } from '../../gateway/limits/create-limits.js';
import { databasePoolSize } from '../../lib/store/pool-sizing.js';
import type { DispatcherHooks } from '../../gateway/batch/dispatcher-hooks.js';
import { startGateway, type RunningGateway } from '../../gateway/main.js';
import { startWorkers, type RunningWorkers } from '../../worker/main.js';

export interface EmbeddedService {
  url: string;
  secret: string;
  organizationId: string;
  projectId: string;
  db: Db;
  config: Config;
  registry: Registry;
  gateway: RunningGateway;
  workers: RunningWorkers | null;
  bus: MemoryBus;
  stop(): Promise<void>;
}

/**
 * The embedded default in this process: PGlite in memory, the in-process bus, a gateway on a random
 * loopback port, and the given engines. Loopback targets are allowed, as tests need.
 */
export interface EmbeddedOptions {
  engines?: EngineName[];
  env?: Record<string, string>;
  /** A PostgreSQL database instead of PGlite in memory (pool sized as `trawler serve` sizes it). */
  databaseUrl?: string;
  /** PGlite in this data directory, as `trawler all` keeps it (default: in memory). */
  dataDir?: string;
  batchHooks?: DispatcherHooks;
  limits?: GatewayLimits;
  /** The in-process bus checks every job and result as NATS would (default); benches measure without, as `trawler serve` runs. */
  checkBusMessages?: boolean;
}

export async function startEmbedded(options: EmbeddedOptions = {}): Promise<EmbeddedService> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    TRAWLER_ALLOW_LOOPBACK_TARGETS: 'true',
    HEARTBEAT_INTERVAL_MS: '200',
    ...options.env,
  });
  const pool = { size: databasePoolSize(config), timeoutMs: config.DATABASE_POOL_TIMEOUT_MS };
  const db = await openStore({ databaseUrl: options.databaseUrl, dataDir: options.dataDir ?? null, pool });
  const created = await bootstrapIfEmpty(db, {
    monthlyCreditsMicro: config.DEFAULT_MONTHLY_CREDITS * 1_000_000,
    rateLimitPerSecond: config.DEFAULT_RATE_LIMIT_PER_SECOND,
    concurrencyLimit: config.DEFAULT_CONCURRENCY_LIMIT,
  });
  if (!created) throw new Error('fresh store was not empty');
  const logger = createLogger('test', (process.env.TEST_LOG_LEVEL ?? 'silent') as 'silent');
  const registry = createRegistry('test');
  const bus = new MemoryBus({ checkMessages: options.checkBusMessages ?? true });
  const engines = options.engines ?? ['fetch'];
  const workers = engines.length > 0 ? await startWorkers({ config, bus, logger, registry, version: 'test' }, engines) : null;
  const gateway = await startGateway({ config, db, bus, logger, registry, version: 'test', limits: options.limits, batchHooks: options.batchHooks });
  return {
    url: gateway.url,
    secret: created.secret,
    organizationId: created.organization.id,
    projectId: created.project.id,
    db,
    config,
    registry,
    gateway,
    workers,
    bus,
    async stop() {
      await gateway.stop(1000);
      await workers?.stop(1000);
      await bus.close();
      await db.close();
    },
  };
}

/** fetch() with the key in the Authorization header. */
export function authed(secret: string, init: RequestInit = {}): RequestInit {
  return { ...init, headers: { authorization: `Bearer ${secret}`, ...(init.headers as Record<string, string> | undefined) } };
}

export function jsonPost(secret: string, body: unknown): RequestInit {
  return authed(secret, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
