import type { Db } from '../store/db.js';
import type { Ledger } from './ledger.js';
import { MemoryLedger } from './memory-ledger.js';
import { StoredLedger } from './stored-ledger.js';

/** The embedded store (PGlite, one process) keeps scrape holds in memory; PostgreSQL keeps them as rows. */
export function createLedger(db: Db): Ledger {
  return db.kind === 'pglite' ? new MemoryLedger(db) : new StoredLedger(db);
}
