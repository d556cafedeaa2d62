import type { Db, Queryable } from './db.js';

/**
 * Vacuuming and checkpoints, which a PostgreSQL server's background processes do and nothing does for
 * PGlite: PGlite runs PostgreSQL as one single-user backend, with no autovacuum launcher (`SHOW
 * autovacuum` still says on) and no checkpointer. Without VACUUM, the space of rows Trawler deletes (the
 * request log and cache purges) and of old versions of rows it updates (batch items, sessions, the
 * month's ledger row) is never reused, and without ANALYZE the planner never has statistics; without
 * a checkpoint, no WAL segment is ever removed. Either way the data directory grows for as long as the
 * service runs (docs/platform.md, "Store maintenance").
 */

/** Trawler's own tables (the public schema), not the catalogues, which the migrations alone change. */
async function ownTables(db: Queryable): Promise<string[]> {
  const result = await db.query<{ name: string }>(`SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
  return result.rows.map((row) => row.name);
}

/**
 * VACUUM (ANALYZE) of Trawler's tables, then a CHECKPOINT: the space of dead rows becomes reusable,
 * the planner's statistics are refreshed, and the WAL written before the checkpoint can be recycled.
 * PGlite runs both on the event loop's thread and every other statement waits for them; the vacuum
 * reads only the pages changed since the last pass (the visibility map), a few tens of milliseconds
 * after 20,000 rows of churn, and the checkpoint writes the pages changed since the last one. Returns
 * the tables vacuumed.
 */
export async function maintainEmbeddedStore(db: Db): Promise<number> {
  const tables = await ownTables(db);
  if (tables.length > 0) await db.exec(`VACUUM (ANALYZE) ${tables.join(', ')}`);
  await db.exec('CHECKPOINT');
  return tables.length;
}

/** Whether a PostgreSQL server runs with autovacuum off, which leaves the same growth to its operator. */
export async function autovacuumIsOff(db: Queryable): Promise<boolean> {
  const result = await db.query<{ on: boolean }>(`SELECT current_setting('autovacuum')::boolean AS on`);
  return result.rows[0]?.on === false;
}
