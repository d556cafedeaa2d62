import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { createdSession, sessionsClient } from '../sessions/sessions-client.js';
import { BatchClient, isTerminal, PATIENT_HEARTBEAT_ENV, SLOW_MACHINE_MS, batchServiceOptions, waitForWorker, type Json } from './batch-client.js';

let site: TargetSite;
let client: BatchClient;

beforeAll(async () => {
  site = await startTargetSite();
});
afterAll(async () => {
  await site?.close();
});
const service = embeddedForSuite(batchServiceOptions(PATIENT_HEARTBEAT_ENV));
beforeAll(async () => {
  await waitForWorker(service);
  client = new BatchClient(service);
});

describe('a batch job bound to a session (top-level session_id)', { timeout: 2 * SLOW_MACHINE_MS }, () => {
  it('runs its items one at a time through the session: state set by one item is sent by the next', async () => {
    const sessions = sessionsClient(service);
    const session = await createdSession(await sessions.create({ engine: 'fetch' }));
    const created = await client.post('/v1/batch', {
      session_id: session.id,
      cache: false,
      concurrency: 5,
      items: [{ url: `${site.origin}/cookies/set?flavour=oat` }, { url: `${site.origin}/echo` }],
    });
    const job = (await created.json()) as Json;
    expect(created.status, JSON.stringify(job)).toBe(202);
    expect(job.concurrency).toBe(1);
    expect(job.warnings).toEqual([`concurrency 5 became 1: the job runs through session ${session.id}`]);
    const done = await client.waitFor(job.id as string, isTerminal, SLOW_MACHINE_MS);
    expect(done.status).toBe('completed');
    const { lines } = await client.results(job.id as string);
    expect(lines.map((line) => line.status)).toEqual(['succeeded', 'succeeded']);
    const echoed = JSON.parse(String((lines[1].result as Json).content)) as { headers: Record<string, string> };
    expect(echoed.headers.cookie).toBe('flavour=oat');
    const after = (await (await sessions.get(session.id)).json()) as Json;
    expect(after.usage_count).toBe(2);
    expect(after).not.toHaveProperty('lease');
  });

  it('answers 404 for an unknown session and 400 for session_id on an item, creating nothing', async () => {
    const jobCount = async () => ((await (await client.get('/v1/batch?limit=200')).json()) as { batches: Json[] }).batches.length;
    const before = await jobCount();
    const unknown = await client.post('/v1/batch', { session_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', urls: [`${site.origin}/`] });
    expect(unknown.status).toBe(404);
    const sessions = sessionsClient(service);
    const session = await createdSession(await sessions.create({ engine: 'fetch' }));
    const onItem = await client.post('/v1/batch', { items: [{ url: `${site.origin}/`, session_id: session.id }] });
    expect(onItem.status).toBe(400);
    expect(((await onItem.json()) as Json).detail).toMatch(/Item 0: session_id/);
    expect(await jobCount()).toBe(before);
  });
});

describe('cancelling an open job', { timeout: 2 * SLOW_MACHINE_MS }, () => {
  it('closes it: the cancelled job shows no open flag', async () => {
    const job = await client.submit({ open: true, urls: [`${site.origin}/slow?ms=500`] });
    expect(job.open).toBe(true);
    const cancelled = await client.post(`/v1/batch/${job.id as string}/cancel`);
    expect(cancelled.status).toBe(202);
    expect((await cancelled.json()) as Json).not.toHaveProperty('open');
    const done = await client.waitFor(job.id as string, isTerminal, SLOW_MACHINE_MS);
    expect(done.status).toBe('cancelled');
    expect(done).not.toHaveProperty('open');
  });
});
