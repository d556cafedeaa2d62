import { autovacuumIsOff, maintainEmbeddedStore } from '../lib/store/maintenance.js';
import type { GatewayContext } from './context.js';
import { startPeriodic, type PeriodicTask } from './periodic.js';

/**
 * The store's upkeep (docs/platform.md, "Store maintenance"). The embedded store (PGlite) has no
 * autovacuum and no checkpointer, so the gateway that owns it vacuums Trawler's tables and takes a
 * checkpoint every STORE_VACUUM_SECONDS (0: never).
 * A PostgreSQL server vacuums itself; the gateway only checks once that its autovacuum is on and warns
 * when it is not. Null when there is nothing to run.
 */
export function startStoreMaintenance(
  context: Pick<GatewayContext, 'db' | 'config' | 'logger'>,
  options: { autoStart?: boolean } = {},
): PeriodicTask | null {
  const { db, config, logger } = context;
  if (db.kind === 'postgres') {
    autovacuumIsOff(db)
      .then((off) => {
        if (off)
          logger.warn(
            'autovacuum is off on the PostgreSQL server: the space of purged and updated rows (request log, cache, settled holds, batch items) is never reused, so the tables grow and statements on them slow down; turn autovacuum on, or VACUUM the database regularly',
          );
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'could not read the PostgreSQL server’s autovacuum setting'));
    return null;
  }
  if (config.STORE_VACUUM_SECONDS === 0) return null;
  return startPeriodic({
    intervalMs: config.STORE_VACUUM_SECONDS * 1000,
    autoStart: options.autoStart,
    pass: async () => {
      const started = performance.now();
      const tables = await maintainEmbeddedStore(db);
      logger.debug({ tables, ms: Math.round(performance.now() - started) }, 'embedded store vacuumed and checkpointed');
    },
    onError: (error) => logger.warn({ err: error }, 'vacuuming the embedded store failed'),
  });
}
