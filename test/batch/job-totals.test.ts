import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startBatchDispatcher } from '../../gateway/batch/dispatcher.js';
import { startEmbedded, type EmbeddedService } from '../support/embedded.js';
import { until } from '../support/poll.js';
import { createTestDatabase, distributedServicesAvailable } from '../support/services.js';
import { BATCH_ENV, BatchClient, expectTotalsMatchItems, isTerminal, SLOW_MACHINE_MS, totalsAgainstItems, waitForWorker, type Json } from './batch-client.js';

// A job's totals live on its row (docs/batch.md "Job totals"): claims, finalizing and GET /v1/batch/{id}
// read them instead of counting the items. These suites check them against a count of the items, both
// read in one statement, while items finish concurrently, and after cancel, retry, crash and stop.
const available = await distributedServicesAvailable();

/** Pages under /ok answer; under /cut the connection is cut (a retryable failure); /hold/ waits for release(). */
async function startTarget(): Promise<{ url: (path: string) => string; release(): void; close(): Promise<void> }> {
  const held: Array<() => void> = [];
  let released = false;
  const server: Server = createServer((req, res) => {
    const answer = () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<html><body><p>${req.url}</p></body></html>`);
    if (req.url?.startsWith('/cut')) return void req.socket.destroy();
    if (req.url?.startsWith('/hold') && !released) return void held.push(answer);
    answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    release: () => {
      released = true;
      for (const answer of held.splice(0)) answer();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('job totals on the job row', { timeout: 4 * SLOW_MACHINE_MS }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(databaseUrl?: string, env: Record<string, string> = {}) {
    const target = await startTarget();
    cleanups.push(() => target.close());
    const service: EmbeddedService = await startEmbedded({ databaseUrl, env: { ...BATCH_ENV, ...env } });
    cleanups.push(() => service.stop());
    await waitForWorker(service);
    return { service, target, client: new BatchClient(service) };
  }

  /** Samples totals against items until the job is terminal; every differing sample is returned. */
  async function sampleUntilTerminal(service: EmbeddedService, client: BatchClient, id: string): Promise<{ samples: number; wrong: unknown[] }> {
    const wrong: unknown[] = [];
    let samples = 0;
    const until = Date.now() + SLOW_MACHINE_MS;
    for (;;) {
      const { onRow, counted } = await totalsAgainstItems(service.db, id);
      samples += 1;
      if (JSON.stringify(onRow) !== JSON.stringify(counted)) wrong.push({ onRow, counted });
      const job = await client.job(id);
      const progress = job.progress as Json;
      if (progress.total !== job.total_items) wrong.push({ progress, total_items: job.total_items });
      if (isTerminal(job)) return { samples, wrong };
      if (Date.now() > until) throw new Error(`job ${id} did not end in time`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it.skipIf(!available)('equal a count of the items at every sampled moment while two dispatchers finish items concurrently (PostgreSQL)', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const { service, target, client } = await setUp(database.url, { BATCH_DISPATCH_CAPACITY: '20' });
    const second = startBatchDispatcher(service.gateway.context, { owner: 'second-gateway' });
    cleanups.push(() => second.stop(5000));
    const urls = Array.from({ length: 90 }, (_, n) => target.url(n % 9 === 0 ? `/cut/${n}` : `/ok/${n}`));
    const job = await client.submit({ urls, concurrency: 30, max_attempts: 2 });
    const run = await sampleUntilTerminal(service, client, job.id as string);
    expect(run.wrong).toEqual([]);
    const ended = await client.job(job.id as string);
    expect(ended.progress).toMatchObject({ succeeded: 80, failed: 10, total: 90 });

    // Retry takes the failed items back; they fail again, and the totals follow every step.
    const retried = await client.post(`/v1/batch/${job.id as string}/retry`);
    expect(retried.status).toBe(200);
    await expectTotalsMatchItems(service.db, job.id as string);
    const again = await sampleUntilTerminal(service, client, job.id as string);
    expect(again.wrong).toEqual([]);
    expect((await client.job(job.id as string)).progress).toMatchObject({ succeeded: 80, failed: 10 });
  });

  it('follow a cancel while items are running, and a dispatcher that stops and hands its items back', async () => {
    const { service, target, client } = await setUp();
    const job = await client.submit({ urls: Array.from({ length: 12 }, (_, n) => target.url(`/hold/${n}`)), concurrency: 4 });
    const id = job.id as string;
    await client.waitFor(id, (j) => (j.progress as Json).remaining === 12 && j.status === 'running');
    await until(() => totalsAgainstItems(service.db, id), (totals) => totals.onRow.running === 4, SLOW_MACHINE_MS, 10);
    await expectTotalsMatchItems(service.db, id);

    // The gateway's dispatcher stops without waiting: its four running items go back to the queue.
    await service.gateway.batchDispatcher.stop(0);
    const handedBack = await totalsAgainstItems(service.db, id);
    expect(handedBack.onRow).toEqual(handedBack.counted);
    expect(handedBack.onRow).toMatchObject({ queued: 12, running: 0 });

    // Another dispatcher takes them; cancel while they run: queued items are cancelled at once.
    const replica = startBatchDispatcher(service.gateway.context, { owner: 'replica' });
    cleanups.push(() => replica.stop(5000));
    await until(() => totalsAgainstItems(service.db, id), (totals) => totals.onRow.running === 4, SLOW_MACHINE_MS, 10);
    expect((await client.post(`/v1/batch/${id}/cancel`)).status).toBe(202);
    const cancelling = await totalsAgainstItems(service.db, id);
    expect(cancelling.onRow).toEqual(cancelling.counted);
    expect(cancelling.onRow).toMatchObject({ queued: 0, running: 4, cancelled: 8 });
    target.release();
    const ended = await client.waitTerminal(id);
    expect(ended.status).toBe('cancelled');
    expect(ended.progress).toMatchObject({ succeeded: 4, cancelled: 8, total: 12 });
    await expectTotalsMatchItems(service.db, id);
  });
});
