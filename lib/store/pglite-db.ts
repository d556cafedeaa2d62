import { mkdirSync } from 'node:fs';
import { PGlite, types } from '@electric-sql/pglite';
import type { Db, QueryResult, Queryable } from './db.js';

/** PostgreSQL compiled to WASM, in-process, persisted in a data directory (the embedded default). */
export class PgliteDb implements Db {
  readonly kind = 'pglite' as const;

  private constructor(private readonly pg: PGlite) {}

  static async open(dataDir: string | null): Promise<PgliteDb> {
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    const pg = await PGlite.create(dataDir ?? undefined, {
      parsers: { [types.INT8]: Number, [types.NUMERIC]: Number },
    });
    return new PgliteDb(pg);
  }

  async query<T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> {
    const result = await this.pg.query<T>(sql, params);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  }

  async exec(sql: string): Promise<void> {
    await this.pg.exec(sql);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.pg.transaction(async (tx) =>
      work({
        async query<R>(sql: string, params: unknown[] = []) {
          const result = await tx.query<R>(sql, params);
          return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
        },
        async exec(sql: string) {
          await tx.exec(sql);
        },
      }),
    );
  }

  async withAdvisoryLock<T>(_key: number, work: (tx: Queryable) => Promise<T>): Promise<T> {
    // One PGlite instance is one single-user backend owned by this process; its data directory
    // cannot be opened by a second process, so there is nobody to exclude.
    return work(this);
  }

  async close(): Promise<void> {
    await this.pg.close();
  }
}
