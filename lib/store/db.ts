/** The store's one dialect is PostgreSQL (DESIGN.md decision 1): a server through `pg`, or PGlite in-process. */
export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface QueryOptions {
  /**
   * A hot statement's name (unique per SQL text): the store parses and plans it once per connection
   * and reuses the plan, instead of per call. Only a hint; a store may ignore it.
   */
  name?: string;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult<T>>;
  /** Run a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Run `work` holding a session-level advisory lock (used by migrations). */
  withAdvisoryLock<T>(key: number, work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A round trip to the store (health checks). */
export async function pingStore(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
