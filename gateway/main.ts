import type { Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { Bus } from '../lib/bus/bus.js';
import { docsBaseOf, type Config } from '../lib/config.js';
import { createLimitedServer, gatewayServerLimits } from '../lib/http-server-limits.js';
import type { Logger } from '../lib/log.js';
import type { Db } from '../lib/store/db.js';
import { createLedger } from '../lib/billing/create-ledger.js';
import { releaseExpiredHolds, type Ledger } from '../lib/billing/ledger.js';
import type { SecretBox } from '../lib/secret-box.js';
import { sealClearBatchParams } from '../lib/store/batch/sealed-params.js';
import { sealClearWebhookSecrets } from '../lib/store/batch/webhooks.js';
import { resealUnboundDefaultKeys } from '../lib/store/dashboard/keys.js';
import { purgeSignInAttempts, SIGN_IN_WINDOW_MS } from '../lib/store/dashboard/sign-in-attempts.js';
import { openSealingBox } from '../lib/store/sealing-key.js';
import { createApp } from './app.js';
import { BrowserConnections } from './browser/connections.js';
import { routeUpgrades } from './browser/upgrade.js';
import { operation } from './routes/declare.js';
import { closeLingering } from './lingering-close.js';
import { recordRefused } from './request-log/record-refused.js';
import { answerMalformedRequests } from './client-error.js';
import { startRequestLogPurge } from './request-log/purge.js';
import { startStoreMaintenance } from './store-maintenance.js';
import { RequestLogWriter } from './request-log/log-writer.js';
import { startBatchDispatcher, type BatchDispatcher } from './batch/dispatcher.js';
import type { DispatcherHooks } from './batch/dispatcher-hooks.js';
import { startWebhookDeliverer } from './webhooks/deliverer.js';
import { purgeCache } from './scrape/cache.js';
import { purgeExpiredContexts } from '../lib/store/sessions/index.js';
import { KeyResolver } from './auth/key-resolver.js';
import type { GatewayContext } from './context.js';
import { openExitPool, watchExitPool } from './proxy/pool.js';
import type { PoolFileCheck } from '../lib/proxy-pool/pool-file-watch.js';
import { pruneDomainHealth, pruneStickyExits } from '../lib/store/proxy-pools.js';
import { createLimits, type GatewayLimits } from './limits/create-limits.js';
import { WorkerDirectory } from './worker-directory.js';
import { WorkTracker } from './work-tracker.js';
import { createGatewayMetrics } from './metrics.js';
import { createModelExtraction } from './ai/model-extraction.js';

export interface GatewayDeps {
  config: Config;
  db: Db;
  bus: Bus;
  logger: Logger;
  registry: Registry;
  version: string;
  /** The ledger, when another program of this process shares it (bin/serve.ts: the dashboard); default: createLedger for the store. */
  ledger?: Ledger;
  /** Seals the store's secrets; default: openSealingBox without a key file (the setting, else the store's key). */
  box?: SecretBox;
  /** Tests only: limiters of their own (default: createLimits for the store). */
  limits?: GatewayLimits;
  /** Points where the batch dispatcher waits for its caller (gateway/batch/dispatcher-hooks.ts); tests pass them to drive races. */
  batchHooks?: DispatcherHooks;
}

export interface RunningGateway {
  server: Server;
  url: string;
  context: GatewayContext;
  batchDispatcher: BatchDispatcher;
  /** Stop accepting connections, answer requests in flight (bounded by graceMs), then resolve. */
  stop(graceMs: number): Promise<void>;
  /** Reads PROXY_POOLS_FILE now (SIGHUP): null without a managed pool. */
  reloadProxyPools(): PoolFileCheck | null;
}


/** Secrets stored before sealing (webhooks, batch parameters) or before bindings (Default keys) are sealed bound at start. */
async function sealStoredSecrets(db: Db, box: SecretBox, logger: Logger): Promise<void> {
  const webhooks = await sealClearWebhookSecrets(db, box);
  const defaults = await resealUnboundDefaultKeys(db, box);
  const batch = await sealClearBatchParams(db, box);
  if (webhooks + defaults + batch.jobs + batch.items > 0) {
    logger.info({ webhook_secrets: webhooks, default_keys: defaults, batch_jobs: batch.jobs, batch_items: batch.items }, 'sealed stored secrets');
  }
}

/** After the grace period, how long cut-off requests get to settle their holds before the store closes. */
const SETTLE_AFTER_GRACE_MS = 5000;
/** A sticky key unused this long loses its exit assignment (docs/proxy-pools.md, "Sticky keys"). */
const STICKY_EXIT_RETENTION_MS = 24 * 3_600_000;

export async function startGateway(deps: GatewayDeps): Promise<RunningGateway> {
  const directory = new WorkerDirectory(deps.bus);
  directory.start();
  const { batchHooks, box: givenBox, ...shared } = deps;
  const box = givenBox ?? (await openSealingBox(deps.db, deps.config, deps.logger, false));
  await sealStoredSecrets(deps.db, box, deps.logger);
  const managedPool = openExitPool(deps.config, deps.db);
  const exitPool = managedPool?.pool ?? null;
  const limits = deps.limits ?? createLimits(deps.db, deps.logger);
  const ledger = deps.ledger ?? createLedger(deps.db);
  const context: GatewayContext = {
    ...shared,
    ledger,
    box,
    directory,
    metrics: createGatewayMetrics(deps.registry, { directory, db: deps.db, exitPool }),
    keys: new KeyResolver(deps.db, deps.config.KEY_CACHE_SECONDS),
    ...limits,
    ai: createModelExtraction(deps.config, limits.concurrency, deps.registry),
    egressPolicy: { allowLoopback: deps.config.TRAWLER_ALLOW_LOOPBACK_TARGETS },
    requestLog: new RequestLogWriter(deps.db, deps.logger, { flushMs: deps.config.REQUEST_LOG_FLUSH_MS }),
    work: new WorkTracker(),
    exitPool,
    browsers: new BrowserConnections(deps.db, deps.logger),
  };
  const poolFileWatch = managedPool ? watchExitPool(managedPool, deps.config, deps.logger, context.metrics) : null;
  let draining = false;
  const app = createApp(context, { draining: () => draining });
  // A request without Host reaches the app, which refuses it with a problem body (http-framing.ts).
  const server = createLimitedServer(app, gatewayServerLimits(deps.config), { requireHostHeader: false });
  routeUpgrades(server, app, operation('remoteBrowser').path);
  answerMalformedRequests(server, app, docsBaseOf(deps.config), deps.logger, recordRefused(context));
  closeLingering(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.config.PORT, deps.config.HOST, () => resolve());
  });
  const requestLogPurge = startRequestLogPurge(context);
  const storeMaintenance = startStoreMaintenance(context);
  const batchDispatcher = startBatchDispatcher(context, { hooks: batchHooks });
  const webhookDeliverer = startWebhookDeliverer(context);
  const sweeper = setInterval(() => {
    releaseExpiredHolds(deps.db, context.ledger).catch((error: unknown) =>
      deps.logger.warn({ err: error }, 'releasing stale reservations failed'),
    );
    purgeCache(deps.db).catch((error: unknown) => deps.logger.warn({ err: error }, 'cache purge failed'));
    purgeExpiredContexts(deps.db).catch((error: unknown) => deps.logger.warn({ err: error }, 'session context purge failed'));
    pruneStickyExits(deps.db, STICKY_EXIT_RETENTION_MS).catch((error: unknown) => deps.logger.warn({ err: error }, 'sticky exit prune failed'));
    pruneDomainHealth(deps.db, {
      now: Date.now(),
      olderThanMs: deps.config.PROXY_DOMAIN_HEALTH_RETENTION_MS,
      maxRows: deps.config.PROXY_DOMAIN_HEALTH_MAX_ROWS,
    }).catch((error: unknown) => deps.logger.warn({ err: error }, 'proxy domain health prune failed'));
    purgeSignInAttempts(deps.db, SIGN_IN_WINDOW_MS).catch((error: unknown) => deps.logger.warn({ err: error }, 'sign-in attempt purge failed'));
  }, 60_000);
  sweeper.unref();
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : deps.config.PORT;
  const url = `http://${deps.config.HOST.includes(':') ? `[${deps.config.HOST}]` : deps.config.HOST}:${port}`;
  deps.logger.info({ url }, 'gateway listening');
  return {
    server,
    url,
    context,
    batchDispatcher,
    reloadProxyPools: () => poolFileWatch?.reload() ?? null,
    async stop(graceMs: number) {
      const deadline = Date.now() + graceMs;
      draining = true;
      const drainDelay = Math.min(deps.config.SHUTDOWN_DRAIN_DELAY_MS, graceMs);
      if (drainDelay > 0) {
        // Still serving, /readyz already 503 draining: the load balancer stops sending before the listener closes.
        deps.logger.info({ ms: drainDelay }, 'draining: serving until load balancers have taken this gateway out');
        await new Promise((resolve) => setTimeout(resolve, drainDelay));
      }
      clearInterval(sweeper);
      poolFileWatch?.close();
      // Remote-browser connections end with 1001, each billed its started minutes, before anything closes.
      await context.browsers.closeAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), Math.max(0, deadline - Date.now()));
      timer.unref();
      await Promise.all([closed, batchDispatcher.stop(Math.max(0, deadline - Date.now())), webhookDeliverer.stop(), requestLogPurge.stop(), storeMaintenance?.stop()]);
      clearTimeout(timer);
      // Handlers whose connection was cut at the deadline still settle holds and write their log.
      await context.work.drain(Math.max(0, deadline - Date.now()) + SETTLE_AFTER_GRACE_MS);
      // Every answered request's entry is stored before the store closes (docs/request-log.md).
      await context.requestLog.close();
      await context.exitPool?.close().catch((error: unknown) => deps.logger.warn({ err: error }, 'writing pool exit successes failed'));
      await context.concurrency.close();
      // Every settlement asked for is written before the store closes.
      await context.ledger.drain();
      context.keys.close();
      await directory.stop();
    },
  };
}
