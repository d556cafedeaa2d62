import { Router } from 'express';
import { ExitPool } from '../../lib/proxy-pool/exit-pool.js';
import { PoolFileSource } from '../../lib/proxy-pool/pool-file-watch.js';
import { listDomainHealth } from '../../lib/store/proxy-pools.js';
import type { DashboardContext } from '../context.js';

/** Per-domain cooldowns shown beside the exits, newest first. */
const DOMAIN_ROWS = 50;

/**
 * The managed proxy pool this deployment configures (PROXY_POOLS_FILE) and the health every gateway
 * shares through the store (docs/proxy-pools.md): ids, tiers, countries, labels and `scheme://host:port`,
 * never credentials. Deployment-wide and read-only, so any member of a workspace may see it.
 */
export function proxyExitRoutes(context: DashboardContext): Router {
  const router = Router({ mergeParams: true });
  let managed: { pool: ExitPool; source: PoolFileSource } | null | undefined;
  router.get('/proxy-exits', async (_req, res) => {
    const file = context.config.PROXY_POOLS_FILE;
    if (managed === undefined && file) {
      const source = PoolFileSource.open(file);
      managed = { source, pool: new ExitPool(source.exits, context.db, { cooldownBaseMs: 1, cooldownMaxMs: 1, refreshMs: 0 }) };
    }
    managed ??= null;
    // The exits the gateway serves: a changed file as it applies it (a refused one leaves them as they are).
    const check = managed?.source.check();
    if (check?.result === 'applied') managed?.pool.replaceExits(check.exits);
    const pool = managed?.pool ?? null;
    res.setHeader('Cache-Control', 'no-store');
    if (!pool) return void res.json({ configured: false, exits: [], domains: [] });
    const now = Date.now();
    const domains = (await listDomainHealth(context.db, DOMAIN_ROWS)).map((row) => ({
      exit: row.exit_key,
      domain: row.domain,
      bans: row.bans,
      cooling_until: row.cooldown_until > now ? new Date(row.cooldown_until).toISOString() : null,
    }));
    res.json({ configured: true, exits: await pool.status(), domains });
  });
  return router;
}
