import { migrate } from '../../lib/store/migrate.js';
import { MIGRATIONS } from '../../lib/store/migrations/index.js';
import { PgliteDb } from '../../lib/store/pglite-db.js';

/**
 * An in-memory store migrated up to, not including, `version`, with foreign keys off
 * (`session_replication_role = replica`), so a migration test can seed rows as they stood before
 * `version` without their parents; it turns them back on and runs `migrate(db)` itself.
 */
export async function storeBeforeMigration(version: number): Promise<PgliteDb> {
  const db = await PgliteDb.open(null);
  await migrate(db, MIGRATIONS.filter((migration) => migration.version < version));
  await db.exec(`SET session_replication_role = replica`);
  return db;
}
