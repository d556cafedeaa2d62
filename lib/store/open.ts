import type { Db } from './db.js';
import { PgDb, type PoolOptions } from './pg-db.js';
import { PgliteDb } from './pglite-db.js';
import { migrate } from './migrate.js';

/** PostgreSQL when a URL is given, else PGlite in `dataDir`; migrations applied before use. */
export async function openStore(options: { databaseUrl?: string; dataDir: string | null; pool?: PoolOptions }): Promise<Db> {
  const db = options.databaseUrl ? new PgDb(options.databaseUrl, options.pool) : await PgliteDb.open(options.dataDir);
  try {
    await migrate(db);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  return db;
}
