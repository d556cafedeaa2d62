import type { Config } from '../../lib/config.js';
import type { Logger } from '../../lib/log.js';
import { ExitPool } from '../../lib/proxy-pool/exit-pool.js';
import { PoolFileSource, watchPoolFile, type PoolFileCheck, type PoolFileWatch } from '../../lib/proxy-pool/pool-file-watch.js';
import type { Db } from '../../lib/store/db.js';
import type { GatewayMetrics } from '../metrics.js';

/** The managed pool and the file it comes from. */
export interface ManagedPool {
  pool: ExitPool;
  source: PoolFileSource;
}

/** The managed pool PROXY_POOLS_FILE configures, or null; a bad file stops the gateway at start, naming what is wrong. */
export function openExitPool(config: Config, db: Db): ManagedPool | null {
  if (!config.PROXY_POOLS_FILE) return null;
  const source = PoolFileSource.open(config.PROXY_POOLS_FILE);
  const pool = new ExitPool(source.exits, db, {
    cooldownBaseMs: config.PROXY_COOLDOWN_BASE_MS,
    cooldownMaxMs: Math.max(config.PROXY_COOLDOWN_BASE_MS, config.PROXY_COOLDOWN_MAX_MS),
    refreshMs: config.PROXY_HEALTH_REFRESH_MS,
  });
  return { pool, source };
}

/**
 * Applies a changed pool file to new requests (docs/proxy-pools.md, "Reloading the pool file"): on a
 * change the watch sees, every PROXY_POOLS_WATCH_MS, and on `reload()` (SIGHUP). A file that fails
 * validation keeps the pools in use; the refusal is logged (no credential: see parseErrorText) and counted.
 */
export function watchExitPool(managed: ManagedPool, config: Config, logger: Logger, metrics: GatewayMetrics): PoolFileWatch {
  const report = (check: PoolFileCheck): void => {
    if (check.result === 'applied') {
      managed.pool.replaceExits(check.exits);
      metrics.poolFileReloads.inc({ result: 'applied' });
      metrics.poolFileValid.set(1);
      logger.info({ exits: managed.pool.candidates.length }, 'proxy pool file reloaded');
    } else if (check.result === 'rejected') {
      metrics.poolFileReloads.inc({ result: 'rejected' });
      metrics.poolFileValid.set(0);
      logger.error({ reason: check.error.message }, 'proxy pool file refused; the pools in use stay');
    }
  };
  return watchPoolFile(managed.source, config.PROXY_POOLS_WATCH_MS, report);
}
