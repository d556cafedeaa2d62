import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_ENV, BatchClient, waitForWorker, type Json } from '../batch/batch-client.js';
import { startExitTarget, startProviderGateway, startStaticExit, type ExitServer, type ExitTarget } from '../support/pool-exits.js';
import { poolServiceForSuite } from '../support/pool-service.js';
import { jsonPost } from '../support/embedded.js';

let target: ExitTarget;
let provider: ExitServer;
let datacenter: ExitServer;
let client: BatchClient;

beforeAll(async () => {
  target = await startExitTarget();
  datacenter = await startStaticExit({ address: '127.0.0.60' });
  provider = await startProviderGateway({ US: ['127.0.0.61'], DE: ['127.0.0.62'] });
});

afterAll(async () => {
  await Promise.all([target?.close(), provider?.close(), datacenter?.close()]);
});
const service = poolServiceForSuite(() => [
  { id: 'dc', url: datacenter.url, tier: 'datacenter', country: 'NL' },
  { id: 'gw', url: `http://127.0.0.1:${provider.port}`, username_template: 'cust-{country}-sess-{session}', password: 'secret', tier: 'residential', countries: ['US', 'DE'] },
], { env: BATCH_ENV });
beforeAll(async () => {
  client = new BatchClient(service);
  await waitForWorker(service);
});

describe('batch items through the managed pool', () => {
  it('prices job-level premium_proxy at the residential column, honours per-item country and sticky_key, and bills each item once', async () => {
    const spentBefore = await service.spentMicro();
    const job = await client.submit({
      premium_proxy: true,
      cache: false,
      items: [
        { url: `${target.url}?i=0`, proxy_country: 'US' },
        { url: `${target.url}?i=1`, proxy_country: 'DE', sticky_key: 'b-1' },
        { url: `${target.url}?i=2`, premium_proxy: false },
      ],
    });
    // Two residential items at 10 and one datacenter item at 1.
    expect(job.estimated_credits).toBe(21);
    const done = await client.waitFor(job.id as string, (j: Json) => j.status === 'completed');
    expect(done.status).toBe('completed');
    const { lines } = await client.results(job.id as string);
    expect(lines.map((line) => line.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect((await service.spentMicro()) - spentBefore).toBe(21_000_000);
    expect(new Set(target.seen())).toEqual(new Set(['127.0.0.61', '127.0.0.62', '127.0.0.60']));
    expect(provider.usernames().some((name) => name.startsWith('cust-de-'))).toBe(true);
  });

  it("holds each item of a job bound to a residential session at the residential price it is charged", async () => {
    const created = await fetch(`${service.url}/v1/sessions`, jsonPost(service.secret, { premium_proxy: true, proxy_country: 'US' }));
    expect(created.status).toBe(201);
    const session = (await created.json()) as Json;
    const spentBefore = await service.spentMicro();
    const job = await client.submit({ session_id: session.id, cache: false, items: [{ url: `${target.url}?s=0` }, { url: `${target.url}?s=1` }] });
    // SPEC: every item is held at its dearest outcome; the session's exit makes that the residential 10.
    expect(job.estimated_credits).toBe(20);
    const done = await client.waitFor(job.id as string, (j: Json) => j.status === 'completed');
    expect((done.progress as Json).succeeded).toBe(2);
    expect((await service.spentMicro()) - spentBefore).toBe(20_000_000);
  });

  it('fails an item whose country no exit serves with EXHAUSTED, at 0 credits', async () => {
    const job = await client.submit({ cache: false, max_attempts: 1, items: [{ url: target.url, premium_proxy: true, proxy_country: 'JP' }] });
    const done = await client.waitFor(job.id as string, (j: Json) => ['completed', 'failed'].includes(j.status as string));
    const { lines } = await client.results(done.id as string);
    expect(lines[0].status).toBe('failed');
    expect((lines[0].error as Json).code).toBe('ERR::PROXY::EXHAUSTED');
  });
});
