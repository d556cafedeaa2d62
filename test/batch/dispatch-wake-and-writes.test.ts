import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startBatchDispatcher } from '../../gateway/batch/dispatcher.js';
import type { DispatcherHooks } from '../../gateway/batch/dispatcher-hooks.js';
import { startEmbedded, type EmbeddedService } from '../support/embedded.js';
import { createTestDatabase, distributedServicesAvailable } from '../support/services.js';
import { BATCH_ENV, BatchClient, ledger, SLOW_MACHINE_MS, waitForWorker, type Json } from './batch-client.js';

// Dispatch without waiting for the poll, and results written several per transaction (docs/batch.md
// "Dispatch" and "Results written in batches"). The poll interval is the largest allowed (60 s), so a
// job of many rounds can only finish in time when items start as soon as there is room.
const available = await distributedServicesAvailable();
const CREDIT = 1_000_000;
const NO_POLL = { BATCH_DISPATCH_INTERVAL_MS: '60000' };

/** A target that counts the requests of each path: an item run twice shows up as a count of 2. */
async function startCountingTarget(): Promise<{ url: (n: number) => string; hits: Map<string, number>; close(): Promise<void> }> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<html><body><p>page ${req.url}</p></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (n) => `http://127.0.0.1:${port}/page/${n}`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('batch dispatch wake-up and batched result writes', { timeout: 4 * SLOW_MACHINE_MS }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(env: Record<string, string>, options: { databaseUrl?: string; hooks?: DispatcherHooks } = {}) {
    const target = await startCountingTarget();
    cleanups.push(() => target.close());
    const service: EmbeddedService = await startEmbedded({ databaseUrl: options.databaseUrl, env: { ...BATCH_ENV, ...env }, batchHooks: options.hooks });
    cleanups.push(() => service.stop());
    await waitForWorker(service);
    return { service, target, client: new BatchClient(service) };
  }

  async function allLines(client: BatchClient, id: string): Promise<Json[]> {
    const lines: Json[] = [];
    for (let cursor = ''; ; ) {
      const page = await client.results(id, `?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.response.status).toBe(200);
      lines.push(...page.lines);
      cursor = page.response.headers.get('x-next-cursor') ?? '';
      if (!cursor) return lines;
    }
  }

  /** Every item succeeded once, was charged one credit, and the ledger holds exactly the sum. */
  async function expectEachChargedOnce(service: EmbeddedService, client: BatchClient, id: string, items: number): Promise<void> {
    const lines = await allLines(client, id);
    expect(lines).toHaveLength(items);
    expect(lines.filter((line) => line.status !== 'succeeded' || line.credits_micro !== CREDIT || line.attempts !== 1)).toEqual([]);
    const job = await client.job(id);
    expect((job.progress as Json).credits_charged_micro).toBe(items * CREDIT);
    expect(await ledger(service)).toEqual({ spent: items * CREDIT, reserved: 0 });
  }

  it('runs a job of many rounds to the end without waiting for the dispatcher poll', async () => {
    const { service, target, client } = await setUp(NO_POLL);
    const ITEMS = 40;
    const job = await client.submit({ urls: Array.from({ length: ITEMS }, (_, n) => target.url(n)), concurrency: 3 });
    const done = await client.waitFor(job.id as string, (j) => j.status === 'completed', SLOW_MACHINE_MS);
    expect(done.progress).toMatchObject({ succeeded: ITEMS });
    await expectEachChargedOnce(service, client, job.id as string, ITEMS);
  });

  it('starts appended and retried items without waiting for the poll', async () => {
    const { service, target, client } = await setUp(NO_POLL);
    const job = await client.submit({ urls: [target.url(0)], open: true });
    await client.waitFor(job.id as string, (j) => (j.progress as Json).succeeded === 1, SLOW_MACHINE_MS);
    const appended = await client.post(`/v1/batch/${job.id}/items`, { urls: [target.url(1), target.url(2)] });
    expect(appended.status).toBe(200);
    await client.waitFor(job.id as string, (j) => (j.progress as Json).succeeded === 3, SLOW_MACHINE_MS);
    expect([0, 1, 2].map((n) => target.hits.get(`/page/${n}`))).toEqual([1, 1, 1]);
    expect(await ledger(service)).toEqual({ spent: 3 * CREDIT, reserved: 0 });
  });

  it('writes results that finish together in shared transactions: every result stored, each charged exactly once', async () => {
    const ITEMS = 60;
    const arrived = deferred();
    const release = deferred();
    let count = 0;
    const { service, target, client } = await setUp(
      { ...NO_POLL, BATCH_DISPATCH_CAPACITY: String(ITEMS) },
      {
        hooks: {
          async beforeFinish() {
            count += 1;
            if (count === 50) arrived.resolve();
            await release.promise;
          },
        },
      },
    );
    const job = await client.submit({ urls: Array.from({ length: ITEMS }, (_, n) => target.url(n)), concurrency: 50 });
    // Fifty results are ready at once and reach the writer together.
    await arrived.promise;
    release.resolve();
    await client.waitFor(job.id as string, (j) => j.status === 'completed', SLOW_MACHINE_MS);
    await expectEachChargedOnce(service, client, job.id as string, ITEMS);
  });

  it('charges nothing for an item whose hold was settled before its result is written, and every other item once', async () => {
    const ITEMS = 30;
    let settledSeq: number | null = null;
    let serviceRef: EmbeddedService | null = null;
    const { service, target, client } = await setUp(NO_POLL, {
      hooks: {
        // The first result to arrive finds its hold already settled (at 0), as if settled elsewhere.
        async beforeFinish(item) {
          if (settledSeq !== null || item.reservationId === null) return;
          settledSeq = item.seq;
          await serviceRef!.gateway.context.ledger.settle(item.reservationId, 0);
        },
      },
    });
    serviceRef = service;
    const job = await client.submit({ urls: Array.from({ length: ITEMS }, (_, n) => target.url(n)), concurrency: 10 });
    await client.waitFor(job.id as string, (j) => j.status === 'completed', SLOW_MACHINE_MS);
    const lines = await allLines(client, job.id as string);
    expect(lines).toHaveLength(ITEMS);
    expect(lines.filter((line) => line.status !== 'succeeded')).toEqual([]);
    expect(lines.filter((line) => line.seq === settledSeq).map((line) => line.credits_micro)).toEqual([0]);
    expect(lines.filter((line) => line.seq !== settledSeq && line.credits_micro !== CREDIT)).toEqual([]);
    expect(((await client.job(job.id as string)).progress as Json).credits_charged_micro).toBe((ITEMS - 1) * CREDIT);
    expect(await ledger(service)).toEqual({ spent: (ITEMS - 1) * CREDIT, reserved: 0 });
  });

  it('claims the next items in the transaction that writes results; a rollback after the claim starts none and loses none', async () => {
    const ITEMS = 12;
    const claimedInFinish: number[] = [];
    let rolledBack: number[] | null = null;
    const { service, target, client } = await setUp(
      { ...NO_POLL, BATCH_DISPATCH_CAPACITY: '2' },
      {
        hooks: {
          async afterClaimInFinish(claimed) {
            if (claimed.length === 0) return;
            // The first transaction that claims fails before it commits: its results and its claim go together.
            if (rolledBack === null) {
              rolledBack = claimed.map((item) => item.seq);
              throw new Error('finishing transaction lost');
            }
            claimedInFinish.push(...claimed.map((item) => item.seq));
          },
        },
      },
    );
    const job = await client.submit({ urls: Array.from({ length: ITEMS }, (_, n) => target.url(n)), concurrency: 2 });
    await client.waitFor(job.id as string, (j) => j.status === 'completed', SLOW_MACHINE_MS);
    expect(rolledBack).not.toBeNull();
    // With room for two and no poll, most items after the first two start from a finishing transaction.
    expect(claimedInFinish.length).toBeGreaterThan(0);
    expect([...target.hits.values()].filter((n) => n !== 1)).toEqual([]);
    expect(target.hits.size).toBe(ITEMS);
    // attempts 1 everywhere: the rolled-back claim counted no attempt and started nothing.
    await expectEachChargedOnce(service, client, job.id as string, ITEMS);
    // Request log entries are stored with the results; those of the rolled-back group are stored all the same.
    for (const line of await allLines(client, job.id as string)) {
      expect((await client.get(`/v1/requests/${line.request_id as string}`)).status).toBe(200);
    }
  });

  it.skipIf(!available)('two dispatchers on one PostgreSQL never run an item twice, and bill each once', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const { service, target, client } = await setUp({ BATCH_DISPATCH_CAPACITY: '7' }, { databaseUrl: database.url });
    // A second gateway's dispatcher on the same database, with its own owner and leases.
    const second = startBatchDispatcher(service.gateway.context, { owner: 'second-gateway' });
    cleanups.push(() => second.stop(5000));
    const ITEMS = 120;
    const job = await client.submit({ urls: Array.from({ length: ITEMS }, (_, n) => target.url(n)), concurrency: 12 });
    await client.waitFor(job.id as string, (j) => j.status === 'completed', SLOW_MACHINE_MS);
    expect([...target.hits.values()].filter((n) => n !== 1)).toEqual([]);
    expect(target.hits.size).toBe(ITEMS);
    await expectEachChargedOnce(service, client, job.id as string, ITEMS);
  });
});
