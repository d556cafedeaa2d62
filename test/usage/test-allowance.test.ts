import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { createApiKey } from '../../lib/store/accounts.js';
import { BatchClient, ledgerOnceReleased, batchServiceOptions, type Json } from '../batch/batch-client.js';
import { authed } from '../support/embedded.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';

// Issue 27 item 5: the test ledger has an allowance of its own (TEST_MONTHLY_CREDITS), and a batch job's
// holds go to the job's ledger whichever key appends or retries. Here the test allowance is 0.
let site: TargetSite;
let live: BatchClient;
let test: BatchClient;
beforeAll(async () => {
  site = await startTargetSite();
});
afterAll(async () => {
  await site?.close();
});
const service = embeddedForSuite(batchServiceOptions({ TEST_MONTHLY_CREDITS: '0' }));
beforeAll(async () => {
  live = new BatchClient(service);
  const testKey = await createApiKey(service.db, { projectId: service.projectId, name: 'sandbox', environment: 'test', scopes: ['batch', 'read'] });
  test = new BatchClient(service, testKey.secret);
});


async function usage(client: BatchClient, environment: 'live' | 'test'): Promise<Json> {
  const response = await fetch(`${service.url}/v1/usage?environment=${environment}`, authed(client.secret));
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

describe('test allowance', () => {
  it('shows the test ledger its own allowance, not the live one; the default is small', async () => {
    expect(await usage(test, 'test')).toMatchObject({ environment: 'test', allowance_credits: 0, allowance_micro: 0 });
    expect(await usage(test, 'live')).toMatchObject({ environment: 'live', allowance_credits: 100_000 });
    expect(loadConfig({}).TEST_MONTHLY_CREDITS).toBe(1_000);
  });

  it('refuses a test key’s batch beyond the test allowance with 402', async () => {
    const response = await test.post('/v1/batch', { urls: [`${site.origin}/?t=1`] });
    expect(response.status).toBe(402);
    expect(((await response.json()) as Json).code).toBe('ERR::LIMIT::QUOTA_EXCEEDED');
  });
});

describe('batch holds in the job’s ledger', () => {
  it('holds items a test key appends to a live job in the live ledger', async () => {
    const created = await live.submit({ urls: [`${site.origin}/?a=1`], open: true });
    const appended = await test.post(`/v1/batch/${created.id as string}/items`, { urls: [`${site.origin}/?a=2`] });
    expect(appended.status, await appended.clone().text()).toBe(200);
    expect(((await appended.json()) as Json).items_added).toBe(1);
    await live.post(`/v1/batch/${created.id as string}/close`);
    const done = await live.waitTerminal(created.id as string);
    expect(done.progress).toMatchObject({ succeeded: 2 });
    expect(await usage(test, 'test')).toMatchObject({ spent_micro: 0, reserved_micro: 0 });
  });

  it('re-holds a live job’s failed items in the live ledger when a test key retries them', async () => {
    const created = await live.submit({ urls: ['http://127.0.0.1:1/x'], max_attempts: 1 });
    await live.waitTerminal(created.id as string);
    await ledgerOnceReleased(service, 0);
    const retried = await test.post(`/v1/batch/${created.id as string}/retry`);
    expect(retried.status, await retried.clone().text()).toBe(200);
    expect(((await retried.json()) as Json).items_reset).toBe(1);
    await live.waitTerminal(created.id as string);
    expect(await usage(test, 'test')).toMatchObject({ spent_micro: 0, reserved_micro: 0 });
  });
});
