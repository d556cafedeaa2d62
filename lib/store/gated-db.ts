import pLimit from 'p-limit';
import type { Db, Queryable, QueryOptions, QueryResult } from './db.js';

/**
 * A view of `db` that runs at most `permits` statements or transactions at once; the rest wait in
 * this process, holding no connection and with no timeout. Background work (the batch dispatcher)
 * goes through one, so however many items it runs it never takes more than its share of the pool,
 * and requests keep theirs. Inside a transaction use its `tx`, never this view (that would wait on
 * a permit the transaction itself holds).
 */
export function gatedDb(db: Db, permits: number): Db {
  const limit = pLimit(permits);
  return {
    kind: db.kind,
    query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult<T>> {
      return limit(() => db.query<T>(sql, params, options));
    },
    exec(sql: string): Promise<void> {
      return limit(() => db.exec(sql));
    },
    transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      return limit(() => db.transaction(work));
    },
    withAdvisoryLock<T>(key: number, work: (tx: Queryable) => Promise<T>): Promise<T> {
      return limit(() => db.withAdvisoryLock(key, work));
    },
    close: () => db.close(),
  };
}
