import pg from 'pg';
import { ServiceError } from '../errors/index.js';
import type { Db, QueryOptions, QueryResult, Queryable } from './db.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** Connections of one process and how long a caller waits for one (lib/store/pool-sizing.ts). */
export interface PoolOptions {
  size: number;
  timeoutMs: number;
}

export class PgDb implements Db {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;

  constructor(
    connectionString: string,
    private readonly options: PoolOptions = { size: 10, timeoutMs: 5000 },
  ) {
    this.pool = new pg.Pool({
      connectionString,
      max: options.size,
      connectionTimeoutMillis: options.timeoutMs,
      types: {
        getTypeParser: (oid: number, format?: string) =>
          oid === INT8_OID || oid === NUMERIC_OID ? Number : pg.types.getTypeParser(oid, format as 'text'),
      },
    });
    this.pool.on('error', () => undefined);
  }

  async query<T>(sql: string, params: unknown[] = [], options: QueryOptions = {}): Promise<QueryResult<T>> {
    // A named query is prepared once per connection by pg and then only bound and executed.
    const result = await this.pool.query({ text: sql, values: params, name: options.name }).catch((error: unknown) => this.poolFailure(error));
    return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch((error: unknown) => this.poolFailure(error));
    try {
      await client.query('BEGIN');
      const result = await work(clientQueryable(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async withAdvisoryLock<T>(key: number, work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [key]);
      try {
        return await work(clientQueryable(client));
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [key]);
      }
    } finally {
      client.release();
    }
  }

  /** No free connection within the timeout: a clear, retryable 503 instead of a bare driver error. */
  private poolFailure(error: unknown): never {
    if (error instanceof Error && error.message.includes('timeout exceeded when trying to connect')) {
      throw new ServiceError(
        'ERR::INTERNAL::UNAVAILABLE',
        `The database connection pool is exhausted (${this.options.size} connections busy for ${this.options.timeoutMs} ms); retry`,
        { cause: error },
      );
    }
    throw error;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

function clientQueryable(client: pg.PoolClient): Queryable {
  return {
    async query<T>(sql: string, params: unknown[] = [], options: QueryOptions = {}) {
      const result = await client.query({ text: sql, values: params, name: options.name });
      return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  };
}
