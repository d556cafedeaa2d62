import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { DispatcherHooks } from '../../gateway/batch/dispatcher-hooks.js';
import { startEmbedded, type EmbeddedService } from '../support/embedded.js';
import { until } from '../support/poll.js';
import { createTestDatabase, distributedServicesAvailable } from '../support/services.js';
import { BATCH_ENV, BatchClient, isTerminal, ledger, ledgerOnceReleased, PATIENT_HEARTBEAT_ENV, SLOW_MACHINE_MS, waitForWorker, type Json } from './batch-client.js';

// Races of the batch lifecycle on the real PostgreSQL, each driven by hooks in the dispatcher
// (gateway/batch/dispatcher-hooks.ts) and by row locks the test takes itself, never by luck.
const available = await distributedServicesAvailable();
const CREDIT = 1_000_000;
/** Long enough to open a connection on a loaded machine; the lock below is held twice as long. */
const POOL_TIMEOUT_MS = 2000;

/** A target whose answer the test switches: while `failing`, every connection is cut (a retryable failure). */
async function startSwitchableTarget(): Promise<{ url: (n: number) => string; setFailing(on: boolean): void; close(): Promise<void> }> {
  let failing = false;
  const server: Server = createServer((req, res) => {
    if (failing) return void req.socket.destroy();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<html><body><p>item ${req.url}</p></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (n) => `http://127.0.0.1:${port}/item/${n}`,
    setFailing: (on) => void (failing = on),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe.skipIf(!available)('batch races on PostgreSQL', { timeout: 4 * SLOW_MACHINE_MS }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(hooks: DispatcherHooks, env: Record<string, string> = {}) {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    cleanups.push(() => admin.end());
    const target = await startSwitchableTarget();
    cleanups.push(() => target.close());
    const service: EmbeddedService = await startEmbedded({ databaseUrl: database.url, env: { ...BATCH_ENV, ...PATIENT_HEARTBEAT_ENV, ...env }, batchHooks: hooks });
    await waitForWorker(service);
    cleanups.push(() => service.stop());
    const client = new BatchClient(service);
    const databaseName = new URL(database.url).pathname.slice(1);
    /** Backends of this database waiting for a row lock (running a statement like `statement`): the state a race step waits for. */
    const lockWaiters = async (statement = '') => {
      const rows = await admin.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND query ~ $2`, [databaseName, statement]);
      return Number(rows.rows[0].n);
    };
    return { service, client, target, admin, lockWaiters };
  }

  async function itemsOf(client: BatchClient, id: string): Promise<Json[]> {
    const { response, lines } = await client.results(id, '?limit=200');
    expect(response.status).toBe(200);
    return lines;
  }

  it('a retry during the hold return keeps the hold: the re-run success is charged once, nothing stays reserved', async () => {
    const holdSeen = deferred<{ job_id: string; seq: number }>();
    const letReturn = deferred();
    let armed = true;
    const { service, client, target } = await setUp({
      async beforeHoldReturn(due) {
        if (!armed) return;
        armed = false;
        holdSeen.resolve(due);
        await letReturn.promise;
      },
    });
    target.setFailing(true);
    const job = await client.submit({ urls: [target.url(0)], max_attempts: 1 });
    await holdSeen.promise;
    target.setFailing(false);
    const retry = await client.post(`/v1/batch/${job.id}/retry`);
    expect(retry.status).toBe(200);
    letReturn.resolve();
    const done = await client.waitFor(job.id as string, (j) => j.status === 'completed', SLOW_MACHINE_MS);
    const [item] = await itemsOf(client, job.id as string);
    expect(item.status, JSON.stringify(item)).toBe('succeeded');
    expect(item.credits_micro).toBe(CREDIT);
    expect((done.progress as Json).credits_charged).toBe(1);
    expect(await ledger(service)).toEqual({ spent: 1 * CREDIT, reserved: 0 });
  });

  it('a retry while an item finishes neither deadlocks nor loses the result', async () => {
    const finishing = deferred();
    const gateB = deferred();
    let stallFinishOf = 1;
    // The retry's statement that waits: its job lock (job-first order) or its hold on the period row (old order).
    const retryWaiting = () => lockWaiters('batch_jobs WHERE id = \\$1 AND project_id|WITH held AS');
    const { service, client, target, lockWaiters } = await setUp({
      async beforeFinish(item) {
        if (item.seq === 1) await gateB.promise;
      },
      async afterSettle(item) {
        if (item.seq !== stallFinishOf) return;
        stallFinishOf = -1;
        finishing.resolve();
        await until(retryWaiting, (n) => n >= 1, SLOW_MACHINE_MS, 20);
      },
    });
    const okUrl = target.url(1);
    const failUrl = `http://127.0.0.1:1/unreachable`;
    const job = await client.submit({ items: [{ url: failUrl }, { url: okUrl, external_id: 'b' }], max_attempts: 1 });
    // Item 0 fails at once and its hold goes back; item 1 is slowed only inside its finishing transaction.
    await until(() => ledger(service), (l) => l.reserved === 1 * CREDIT, SLOW_MACHINE_MS, 20);
    gateB.resolve();
    await finishing.promise;
    const retry = await client.post(`/v1/batch/${job.id}/retry`);
    expect(retry.status, await retry.clone().text()).toBe(200);
    const done = await client.waitFor(job.id as string, isTerminal, SLOW_MACHINE_MS);
    const items = await itemsOf(client, job.id as string);
    expect(items.map((i) => [i.seq, i.status]), JSON.stringify(items)).toEqual([[0, 'failed'], [1, 'succeeded']]);
    expect(items[1].credits_micro).toBe(CREDIT);
    expect(done.status).toBe('completed');
    // The re-run of item 0 failed again; its hold goes back on a dispatcher pass after the job ended.
    expect(await ledgerOnceReleased(service, 0)).toEqual({ spent: 1 * CREDIT, reserved: 0 });
  });

  it('at a high dispatch capacity, finishes that wait on a lock never exhaust the pool: every item ends with its result, charged once', async () => {
    const ITEMS = 50;
    const arrived = deferred();
    const release = deferred();
    let count = 0;
    const { service, client, target, admin, lockWaiters } = await setUp(
      {
        async beforeFinish() {
          count += 1;
          if (count === ITEMS) arrived.resolve();
          await release.promise;
        },
      },
      { BATCH_DISPATCH_CAPACITY: '200', DATABASE_POOL_TIMEOUT_MS: String(POOL_TIMEOUT_MS) },
    );
    const job = await client.submit({ urls: Array.from({ length: ITEMS }, (_, n) => target.url(n)), concurrency: 50 });
    await arrived.promise;
    // Every result is ready; the test holds the job row, so the job's finishing transaction (results are
    // written in batches, one transaction per job at a time) waits on it and the rest wait behind it.
    await admin.query('BEGIN');
    await admin.query('SELECT id FROM batch_jobs WHERE id = $1 FOR UPDATE', [job.id]);
    release.resolve();
    await until(() => lockWaiters(), (n) => n >= 1, SLOW_MACHINE_MS, 20);
    // Well past the pool's timeout, requests are still served and no finish has given up.
    await new Promise((resolve) => setTimeout(resolve, 2 * POOL_TIMEOUT_MS));
    const during = await client.get(`/v1/batch/${job.id}`);
    expect(during.status).toBe(200);
    await admin.query('COMMIT');
    const done = await client.waitFor(job.id as string, (j) => j.status === 'completed', SLOW_MACHINE_MS);
    const items = await itemsOf(client, job.id as string);
    expect(items).toHaveLength(ITEMS);
    expect(items.filter((i) => i.status !== 'succeeded' || i.credits_micro !== CREDIT)).toEqual([]);
    expect(await ledger(service)).toEqual({ spent: ITEMS * CREDIT, reserved: 0 });
  });
});
