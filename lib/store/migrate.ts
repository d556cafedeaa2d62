import type { Db } from './db.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

const MIGRATION_LOCK_KEY = 0x7472_6177; // "traw"

/** Applies pending migrations once, in order; safe when several processes start at the same moment. */
export async function migrate(db: Db, migrations: Migration[] = MIGRATIONS): Promise<number[]> {
  return db.withAdvisoryLock(MIGRATION_LOCK_KEY, async (conn) => {
    await conn.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = await conn.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(done.rows.map((r) => Number(r.version)));
    const ran: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await conn.query('BEGIN');
      try {
        await conn.exec(migration.up);
        await conn.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
        await conn.query('COMMIT');
      } catch (error) {
        await conn.query('ROLLBACK');
        throw new Error(`migration ${migration.version} (${migration.name}) failed`, { cause: error });
      }
      ran.push(migration.version);
    }
    return ran;
  });
}
