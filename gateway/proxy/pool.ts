import type { Config } from '../../lib/config.js';
import { ExitPool } from '../../lib/proxy-pool/exit-pool.js';
import { loadPoolFile } from '../../lib/proxy-pool/pool-file.js';
import type { Db } from '../../lib/store/db.js';

/** The managed pool PROXY_POOLS_FILE configures, or null; a bad file stops the gateway at start, naming what is wrong. */
export function openExitPool(config: Config, db: Db): ExitPool | null {
  if (!config.PROXY_POOLS_FILE) return null;
  return new ExitPool(loadPoolFile(config.PROXY_POOLS_FILE), db, {
    cooldownBaseMs: config.PROXY_COOLDOWN_BASE_MS,
    cooldownMaxMs: Math.max(config.PROXY_COOLDOWN_BASE_MS, config.PROXY_COOLDOWN_MAX_MS),
    refreshMs: config.PROXY_HEALTH_REFRESH_MS,
  });
}
