import { Router } from 'express';
import { ExitPool } from '../../lib/proxy-pool/exit-pool.js';
import { loadPoolFile } from '../../lib/proxy-pool/pool-file.js';
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
  let pool: ExitPool | null | undefined;
  router.get('/proxy-exits', async (_req, res) => {
    const file = context.config.PROXY_POOLS_FILE;
    pool ??= file ? new ExitPool(loadPoolFile(file), context.db, { cooldownBaseMs: 1, cooldownMaxMs: 1, refreshMs: 0 }) : null;
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
