import { afterAll, beforeAll } from 'vitest';
import type { Db } from '../../lib/store/db.js';
import { openStore } from '../../lib/store/open.js';
import { createTestDatabase } from './services.js';

/** A fresh migrated PostgreSQL database for the calling suite: opened before its tests, closed and dropped after. */
export function useTestStore(): () => Db {
  let database: { url: string; drop(): Promise<void> } | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openStore({ databaseUrl: database.url, dataDir: null });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });
  return () => {
    if (!db) throw new Error('the test store is opened before the suite’s tests run');
    return db;
  };
}
