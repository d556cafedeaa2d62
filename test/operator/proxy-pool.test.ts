import { afterEach, describe, expect, it } from 'vitest';
import { parsePoolFile } from '../../lib/proxy-pool/pool-file.js';
import { condition, NAMESPACE, proxyPool, startHarness, type Harness } from './support/operator-run.js';
import type { KObject } from './support/object-store.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const secret = (name: string, data: Record<string, string>): KObject =>
  ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) }) as unknown as KObject;

const SPEC = {
  exits: [
    { id: 'dc-1', url: 'http://10.0.0.5:3128', tier: 'datacenter', country: 'DE', usernameSecretRef: { name: 'exits', key: 'user' }, passwordSecretRef: { name: 'exits', key: 'pass' } },
    { id: 'resi', url: 'http://gw.provider.example:7000', tier: 'residential', countries: ['US', 'FR'], username_template: 'cust-{country}-sess-{session}', passwordSecretRef: { name: 'provider', key: 'password' } },
  ],
};

function poolFileOf(h: Harness): string | undefined {
  const stored = h.api.store.get('secrets', NAMESPACE, 'trawler-proxypool-main') as unknown as { data?: Record<string, string> } | undefined;
  const data = stored?.data?.['pools.json'];
  return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
}

describe('the ProxyPool resource', () => {
  it('writes the pool file with credentials from Secrets into an owned Secret, and reports exit counts and health', async () => {
    harness = await startHarness({ exitHealth: async (candidates) => ({ healthy: candidates.length - 1, cooling: 1, authFailed: 0 }) });
    harness.api.store.create('secrets', NAMESPACE, secret('exits', { user: 'dc user', pass: 'p@ss' }));
    harness.api.store.create('secrets', NAMESPACE, secret('provider', { password: 'provider-secret' }));
    harness.api.store.create('proxypools', NAMESPACE, proxyPool('main', SPEC));
    await harness.settle();
    const file = poolFileOf(harness);
    expect(file).toBeDefined();
    const exits = parsePoolFile(file!);
    expect(exits[0].urlFor('DE', 'x')).toBe('http://dc%20user:p%40ss@10.0.0.5:3128');
    expect(exits[1].urlFor('US', 'abc')).toBe('http://cust-us-sess-abc:provider-secret@gw.provider.example:7000');
    const stored = harness.api.store.get('proxypools', NAMESPACE, 'main')!;
    const owned = harness.api.store.get('secrets', NAMESPACE, 'trawler-proxypool-main')!;
    expect(owned.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'ProxyPool', name: 'main', uid: stored.metadata.uid, controller: true });
    expect(stored.status).toMatchObject({ secretName: 'trawler-proxypool-main', exits: 3, datacenterExits: 1, residentialExits: 2, countries: ['DE', 'FR', 'US'], health: { healthy: 2, cooling: 1, authFailed: 0 } });
    expect(condition(stored, 'Available')).toMatchObject({ status: 'True', reason: 'PoolFileWritten' });
    expect(JSON.stringify(stored.status)).not.toContain('provider-secret');
    expect(JSON.stringify(stored.status)).not.toContain('p@ss');
  });

  it('is Degraded naming a missing Secret key, and writes no pool file', async () => {
    harness = await startHarness();
    harness.api.store.create('secrets', NAMESPACE, secret('exits', { user: 'u' }));
    harness.api.store.create('proxypools', NAMESPACE, proxyPool('main', { exits: [SPEC.exits[0]] }));
    await harness.settle();
    const stored = harness.api.store.get('proxypools', NAMESPACE, 'main');
    expect(condition(stored, 'Degraded')).toMatchObject({ status: 'True', reason: 'SecretMissing', message: 'secret exits has no key pass' });
    expect(poolFileOf(harness)).toBeUndefined();
  });

  it('is Degraded with InvalidSpec for an exit the gateway would refuse', async () => {
    harness = await startHarness();
    harness.api.store.create('proxypools', NAMESPACE, proxyPool('main', { exits: [{ url: 'ftp://h:1', tier: 'datacenter' }] }));
    await harness.settle();
    expect(condition(harness.api.store.get('proxypools', NAMESPACE, 'main'), 'Degraded')).toMatchObject({ status: 'True', reason: 'InvalidSpec' });
  });

  it('renders the pool file again when a referenced Secret changes, and is Degraded once it is gone', async () => {
    harness = await startHarness();
    const store = harness.api.store;
    store.create('secrets', NAMESPACE, secret('exits', { user: 'dc user', pass: 'first-pass' }));
    store.create('secrets', NAMESPACE, secret('provider', { password: 'provider-secret' }));
    store.create('proxypools', NAMESPACE, proxyPool('main', SPEC));
    await harness.settle();
    expect(parsePoolFile(poolFileOf(harness)!)[0].urlFor('DE', 'x')).toBe('http://dc%20user:first-pass@10.0.0.5:3128');

    // The credential rotated in its Secret (through the API, as kubectl does): the watch brings it to the pool file.
    const rotated = store.get('secrets', NAMESPACE, 'exits')!;
    store.update('secrets', NAMESPACE, 'exits', { ...rotated, data: secret('exits', { user: 'dc user', pass: 'second-pass' }).data }, 'main');
    await harness.settle();
    expect(parsePoolFile(poolFileOf(harness)!)[0].urlFor('DE', 'x')).toBe('http://dc%20user:second-pass@10.0.0.5:3128');
    expect(parsePoolFile(poolFileOf(harness)!)[1].urlFor('US', 'abc')).toBe('http://cust-us-sess-abc:provider-secret@gw.provider.example:7000');
    expect(condition(store.get('proxypools', NAMESPACE, 'main'), 'Available')).toMatchObject({ status: 'True' });

    // A Secret no ProxyPool references changes nothing.
    const writes = harness.api.writes().length;
    store.create('secrets', NAMESPACE, secret('unrelated', { token: 't' }));
    await harness.settle();
    expect(harness.api.writes().length).toBe(writes);

    // The pool file Secret edited by hand is written back.
    const owned = store.get('secrets', NAMESPACE, 'trawler-proxypool-main')!;
    store.update('secrets', NAMESPACE, 'trawler-proxypool-main', { ...owned, metadata: { ...owned.metadata, annotations: {} }, data: { 'pools.json': Buffer.from('{}').toString('base64') } }, 'main');
    await harness.settle();
    expect(parsePoolFile(poolFileOf(harness)!)[0].urlFor('DE', 'x')).toBe('http://dc%20user:second-pass@10.0.0.5:3128');

    store.delete('secrets', NAMESPACE, 'provider');
    await harness.settle();
    const stored = store.get('proxypools', NAMESPACE, 'main');
    expect(condition(stored, 'Degraded')).toMatchObject({ status: 'True', reason: 'SecretMissing', message: 'secret provider has no key password' });
    // The last good pool file stays for the gateways (they keep serving with it).
    expect(parsePoolFile(poolFileOf(harness)!)[0].urlFor('DE', 'x')).toBe('http://dc%20user:second-pass@10.0.0.5:3128');
  });
});
