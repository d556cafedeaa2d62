import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startStoreMaintenance } from '../../gateway/store-maintenance.js';
import { loadConfig } from '../../lib/config.js';
import type { Logger } from '../../lib/log.js';
import type { Db } from '../../lib/store/db.js';
import { autovacuumIsOff } from '../../lib/store/maintenance.js';
import { openStore } from '../../lib/store/open.js';
import { purgeRequestLog } from '../../lib/store/request-log.js';
import { distributedServicesAvailable } from '../support/services.js';
import { useTestStore } from '../support/test-store.js';

const available = await distributedServicesAvailable();

function fakeLogger(): Logger & { warn: ReturnType<typeof vi.fn> } {
  return { warn: vi.fn(), debug: vi.fn(), info: vi.fn(), error: vi.fn() } as unknown as Logger & { warn: ReturnType<typeof vi.fn> };
}

/** 2,000 request log rows of about 600 bytes each, all older than any retention. */
async function logRequests(db: Db, from: number): Promise<void> {
  await db.query(
    `INSERT INTO request_log (id, organization_id, project_id, created_at, status, entry)
     SELECT 'r' || lpad((g + $1)::text, 10, '0'), 'org', 'project', now() - interval '1000 hours', 'success',
            jsonb_build_object('detail', (SELECT string_agg(md5(g::text || ':' || i), '') FROM generate_series(1, 18) i))
       FROM generate_series(1, 2000) g`,
    [from],
  );
}

async function requestLogBytes(db: Db): Promise<number> {
  return (await db.query<{ bytes: number }>(`SELECT pg_relation_size('request_log') AS bytes`)).rows[0].bytes;
}

/** Logs 2,000 requests and purges them, `rounds` times, running `between` after each purge; the table's size after the first and the last round. */
async function churn(db: Db, rounds: number, between: () => Promise<void>): Promise<{ first: number; last: number }> {
  let first = 0;
  for (let round = 0; round < rounds; round += 1) {
    await logRequests(db, round * 2000);
    if (round === 0) first = await requestLogBytes(db);
    expect(await purgeRequestLog(db, new Date())).toBe(2000);
    await between();
  }
  return { first, last: await requestLogBytes(db) };
}

describe('embedded store maintenance (PGlite has no autovacuum)', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openStore({ dataDir: null });
  });
  afterAll(async () => {
    await db.close();
  });

  it('without a vacuum, the space of purged request log rows is never reused', async () => {
    const { first, last } = await churn(db, 3, async () => undefined);
    expect(last).toBeGreaterThan(2 * first);
  });

  it('with the gateway’s vacuum pass between purges, the request log stays the size of one round', async () => {
    await db.exec('TRUNCATE request_log');
    const logger = fakeLogger();
    const maintenance = startStoreMaintenance({ db, config: loadConfig({}), logger }, { autoStart: false });
    expect(maintenance).not.toBeNull();
    const { first, last } = await churn(db, 3, () => maintenance!.tick());
    await maintenance!.stop();
    expect(last).toBeLessThanOrEqual(first);
    expect(logger.warn).not.toHaveBeenCalled();
    // ANALYZE ran too: the planner has statistics for the table (never analysed: -1).
    const stats = await db.query<{ reltuples: number }>(`SELECT reltuples FROM pg_class WHERE relname = 'request_log'`);
    expect(stats.rows[0].reltuples).toBeGreaterThanOrEqual(0);
  });

  it('takes a checkpoint, so the WAL written before the pass can be recycled (PGlite has no checkpointer)', async () => {
    const position = () => db.query<{ behind: number }>(`SELECT pg_current_wal_lsn() - (SELECT redo_lsn FROM pg_control_checkpoint()) AS behind`);
    await logRequests(db, 100_000);
    const before = (await position()).rows[0].behind;
    expect(before).toBeGreaterThan(1_000_000); // the 2,000 rows' WAL, over a megabyte, since the last checkpoint
    const maintenance = startStoreMaintenance({ db, config: loadConfig({}), logger: fakeLogger() }, { autoStart: false })!;
    await maintenance.tick();
    await maintenance.stop();
    expect((await position()).rows[0].behind).toBeLessThan(100_000);
  });

  it('runs no pass when STORE_VACUUM_SECONDS is 0', () => {
    expect(startStoreMaintenance({ db, config: loadConfig({ STORE_VACUUM_SECONDS: '0' }), logger: fakeLogger() })).toBeNull();
  });
});

describe('PostgreSQL server maintenance', () => {
  function serverWith(autovacuum: boolean): Db {
    return { kind: 'postgres', query: async () => ({ rows: [{ on: autovacuum }], rowCount: 1 }) } as unknown as Db;
  }

  it('warns once at start when the server runs with autovacuum off, and vacuums nothing itself', async () => {
    const logger = fakeLogger();
    expect(startStoreMaintenance({ db: serverWith(false), config: loadConfig({}), logger })).toBeNull();
    await vi.waitFor(() => expect(logger.warn).toHaveBeenCalledTimes(1));
    expect(logger.warn.mock.calls[0][0]).toMatch(/^autovacuum is off on the PostgreSQL server/);
  });

  it('says nothing when autovacuum is on', async () => {
    const logger = fakeLogger();
    const server = serverWith(true);
    const read = vi.spyOn(server, 'query');
    startStoreMaintenance({ db: server, config: loadConfig({}), logger });
    await vi.waitFor(() => expect(read).toHaveBeenCalled());
    await read.mock.results[0].value;
    await new Promise((resolve) => setImmediate(resolve));
    expect(logger.warn).not.toHaveBeenCalled();
  });
});

describe.skipIf(!available)('the real PostgreSQL server', () => {
  const store = useTestStore();

  it('reads its autovacuum setting', async () => {
    const shown = await store().query<{ autovacuum: string }>('SHOW autovacuum');
    expect(await autovacuumIsOff(store())).toBe(shown.rows[0].autovacuum === 'off');
  });
});
