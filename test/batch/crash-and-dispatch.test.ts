import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishItem } from '../../gateway/batch/lifecycle.js';
import { startBatchDispatcher, type BatchDispatcher } from '../../gateway/batch/dispatcher.js';
import { claimItems } from '../../lib/store/batch/leases.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { BatchClient, expectTotalsMatchItems, ledger, batchServiceOptions, type Json } from './batch-client.js';

let site: TargetSite;
let client: BatchClient;
let dispatcher: BatchDispatcher;

beforeAll(async () => {
  site = await startTargetSite();
});
// After-hooks run last registered first: the second dispatcher stopped, then the service, then the site.
afterAll(async () => {
  await site?.close();
});
const service = embeddedForSuite(batchServiceOptions({ BATCH_DISPATCH_INTERVAL_MS: '60000', BATCH_DISPATCH_CAPACITY: '3' }));
// The gateway's own dispatcher is stopped (it would claim each submission at once); this suite drives a
// second dispatcher by hand, the way another gateway replica would run.
beforeAll(async () => {
  await service.gateway.batchDispatcher.stop(0);
  client = new BatchClient(service);
  dispatcher = startBatchDispatcher(service.gateway.context, { owner: 'replica-b', driven: 'tick' });
});
afterAll(async () => {
  await dispatcher?.stop(1000);
});

async function runUntilTerminal(id: string): Promise<Json> {
  return client.waitFor(id, (job) => {
    void dispatcher.tick();
    return ['completed', 'failed', 'cancelled'].includes(job.status as string);
  });
}

async function claimedCount(jobId: string): Promise<number> {
  const rows = await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM batch_items WHERE job_id = $1 AND attempts > 0', [jobId]);
  return rows.rows[0].n;
}

describe('crash safety', () => {
  it('re-runs items leased by a crashed dispatcher and bills each exactly once', async () => {
    const before = await ledger(service);
    const created = await client.submit({ urls: [1, 2, 3].map((i) => `${site.origin}/?crash=${i}`), cache: false });
    const id = created.id as string;
    // A gateway claims every item and dies at once: its leases are already past expiry.
    const dead = await service.db.transaction((tx) => claimItems(tx, { owner: 'crashed-gateway', leaseMs: 1, capacity: 10, releaseDelayMs: 0 }));
    expect(dead.map((item) => item.seq)).toEqual([0, 1, 2]);
    expect((await client.job(id)).status).toBe('running');
    await expectTotalsMatchItems(service.db, id);

    const job = await runUntilTerminal(id);
    expect(job.status).toBe('completed');
    expect(job.progress).toMatchObject({ succeeded: 3, credits_charged_micro: 3_000_000 });
    const { lines } = await client.results(id);
    expect(lines.map((l) => [l.status, l.attempts, l.credits_micro])).toEqual([
      ['succeeded', 2, 1_000_000], ['succeeded', 2, 1_000_000], ['succeeded', 2, 1_000_000],
    ]);
    expect(lines.every((l) => l.request_id !== dead[Number(l.seq)].requestId)).toBe(true);

    // The crashed gateway comes back and reports its stale outcome: fenced by the lease, nothing changes.
    const stale = await service.db.transaction((tx) =>
      finishItem(tx, {
        jobId: id, seq: 0, owner: 'crashed-gateway', requestId: dead[0].requestId, releaseDelayMs: 0,
        outcome: { kind: 'succeeded', httpStatus: 200, chargedMicro: 1_000_000, engine: 'fetch', bytes: 1, durationMs: 1, error: null, contentType: 'text/plain', body: Buffer.from('x') },
      }),
    );
    expect(stale).toBe(false);
    await expectTotalsMatchItems(service.db, id);
    const after = await ledger(service);
    expect(after.spent - before.spent).toBe(3_000_000);
    expect(after.reserved).toBe(before.reserved);
  });

  it('fails an item whose lease expired on its last attempt, releasing its hold', async () => {
    const before = await ledger(service);
    const created = await client.submit({ urls: [`${site.origin}/?last=1`], max_attempts: 1 });
    await service.db.transaction((tx) => claimItems(tx, { owner: 'crashed-gateway', leaseMs: 1, capacity: 10, releaseDelayMs: 0 }));
    const job = await runUntilTerminal(created.id as string);
    expect(job.progress).toMatchObject({ failed: 1, credits_charged_micro: 0 });
    const { lines } = await client.results(created.id as string);
    expect(lines[0]).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'ERR::INTERNAL::ERROR', retryable: true } });
    await expectTotalsMatchItems(service.db, created.id as string);
    await dispatcher.tick();
    await dispatcher.tick();
    expect(await ledger(service)).toEqual(before);
  });
});

describe('dispatch order and limits', () => {
  it('never runs more than a job\'s concurrency at once', async () => {
    const created = await client.submit({ urls: [1, 2, 3, 4, 5].map((i) => `${site.origin}/slow?ms=50&k=${i}`), concurrency: 2 });
    await dispatcher.tick();
    expect(await claimedCount(created.id as string)).toBe(2);
    await runUntilTerminal(created.id as string);
  });

  it('serves the higher priority job first', async () => {
    const low = await client.submit({ urls: [1, 2, 3].map((i) => `${site.origin}/?low=${i}`), priority: 1 });
    const high = await client.submit({ urls: [1, 2, 3].map((i) => `${site.origin}/?high=${i}`), priority: 900 });
    await dispatcher.tick();
    expect(await claimedCount(high.id as string)).toBe(3);
    expect(await claimedCount(low.id as string)).toBe(0);
    await runUntilTerminal(high.id as string);
    await runUntilTerminal(low.id as string);
  });
});
