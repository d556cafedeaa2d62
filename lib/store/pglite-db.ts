import { mkdirSync } from 'node:fs';
import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import type { Db, QueryOptions, QueryResult, Queryable } from './db.js';
import { PglitePrepared } from './pglite-prepared.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';

/** PostgreSQL compiled to WASM, in-process, persisted in a data directory (the embedded default). */
export class PgliteDb implements Db {
  readonly kind = 'pglite' as const;
  private readonly prepared: PglitePrepared;

  private constructor(
    private readonly pg: PGlite,
    private readonly lock: DataDirLock | null,
  ) {
    this.prepared = new PglitePrepared(pg);
  }

  /** Opens (and locks) `dataDir`, or an in-memory store when null; throws StoreLockedError when in use. */
  static async open(dataDir: string | null): Promise<PgliteDb> {
    let lock: DataDirLock | null = null;
    if (dataDir) {
      mkdirSync(dataDir, { recursive: true });
      lock = lockDataDir(dataDir);
    }
    try {
      const pg = await PGlite.create(dataDir ?? undefined, {
        parsers: { [types.INT8]: Number, [types.NUMERIC]: Number },
      });
      return new PgliteDb(pg, lock);
    } catch (error) {
      lock?.release();
      throw error;
    }
  }

  async query<T>(sql: string, params: unknown[] = [], options: QueryOptions = {}): Promise<QueryResult<T>> {
    return runOn<T>(this.prepared, this.pg, sql, params, options);
  }

  async exec(sql: string): Promise<void> {
    await this.pg.exec(sql);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const { prepared } = this;
    return this.pg.transaction(async (tx) =>
      work({
        query: <R>(sql: string, params: unknown[] = [], options: QueryOptions = {}) => runOn<R>(prepared, tx, sql, params, options),
        async exec(sql: string) {
          await tx.exec(sql);
        },
      }),
    );
  }

  async withAdvisoryLock<T>(_key: number, work: (tx: Queryable) => Promise<T>): Promise<T> {
    // One PGlite instance is one single-user backend owned by this process, and its data directory
    // is locked to this process (data-dir-lock.ts), so there is nobody to exclude.
    return work(this);
  }

  async close(): Promise<void> {
    try {
      await this.pg.close();
    } finally {
      this.lock?.release();
    }
  }
}

/** A statement on the store or on a transaction's connection: prepared when it is named and its parameters allow. */
async function runOn<T>(prepared: PglitePrepared, via: PGlite | Transaction, sql: string, params: unknown[], options: QueryOptions): Promise<QueryResult<T>> {
  const result = (options.name ? await prepared.run<T>(options.name, sql, params, via) : null) ?? (await via.query<T>(sql, params));
  return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
}
