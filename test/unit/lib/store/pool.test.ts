import { describe, expect, it } from 'vitest';
import type { Db, QueryResult } from '../../../../lib/store/db.js';
import { gatedDb } from '../../../../lib/store/gated-db.js';
import { databasePoolSize, dispatcherConnections } from '../../../../lib/store/pool-sizing.js';

/** A store whose statements finish only when the test says so, counting how many run at once. */
function heldStore() {
  const waiting: Array<() => void> = [];
  let running = 0;
  let peak = 0;
  const run = async <T>(value: T): Promise<T> => {
    running += 1;
    peak = Math.max(peak, running);
    await new Promise<void>((resolve) => waiting.push(resolve));
    running -= 1;
    return value;
  };
  const db: Db = {
    kind: 'postgres',
    query: <T>() => run({ rows: [] as T[], rowCount: 0 } as QueryResult<T>),
    exec: () => run(undefined),
    transaction: (work) => run(null).then(() => work(db)),
    withAdvisoryLock: (_key, work) => run(null).then(() => work(db)),
    close: async () => undefined,
  };
  return { db, waiting, running: () => running, peak: () => peak };
}

describe('gatedDb', () => {
  it('runs at most its permits at once; the rest wait without touching the store, and all complete', async () => {
    const store = heldStore();
    const gated = gatedDb(store.db, 3);
    const all = Promise.all(Array.from({ length: 10 }, () => gated.query('SELECT 1')));
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.running()).toBe(3);
    while (store.waiting.length > 0) {
      store.waiting.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await all;
    expect(store.peak()).toBe(3);
  });
});

describe('pool sizing', () => {
  it('gives requests 10 connections and the dispatcher a share that grows with its capacity', () => {
    expect(databasePoolSize({ BATCH_DISPATCH_CAPACITY: 20 })).toBe(15);
    expect(dispatcherConnections({ BATCH_DISPATCH_CAPACITY: 20 })).toBe(5);
    expect(databasePoolSize({ BATCH_DISPATCH_CAPACITY: 1 })).toBe(12);
    expect(databasePoolSize({ BATCH_DISPATCH_CAPACITY: 1000 })).toBe(35);
    expect(dispatcherConnections({ BATCH_DISPATCH_CAPACITY: 1000 })).toBe(25);
  });

  it('an explicit pool size wins, and the dispatcher never takes more than half of it', () => {
    expect(databasePoolSize({ DATABASE_POOL_SIZE: 4, BATCH_DISPATCH_CAPACITY: 200 })).toBe(4);
    expect(dispatcherConnections({ DATABASE_POOL_SIZE: 4, BATCH_DISPATCH_CAPACITY: 200 })).toBe(2);
  });
});
