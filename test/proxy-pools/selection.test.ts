import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExitTarget, startProviderGateway, startSocksExit, startStaticExit, type ExitServer, type ExitTarget } from '../support/pool-exits.js';
import { poolServiceForSuite } from '../support/pool-service.js';

let target: ExitTarget;
let exits: ExitServer[];
let gateway: ExitServer;

beforeAll(async () => {
  target = await startExitTarget();
  exits = await Promise.all([
    startStaticExit({ address: '127.0.0.2' }),
    startStaticExit({ address: '127.0.0.3', auth: { user: 'dc', pass: 'p@ss word' } }),
    startSocksExit('127.0.0.4'),
  ]);
  gateway = await startProviderGateway({ US: ['127.0.0.10', '127.0.0.11', '127.0.0.12'], DE: ['127.0.0.20', '127.0.0.21', '127.0.0.22'] });
});

afterAll(async () => {
  await Promise.all([target?.close(), gateway?.close(), ...(exits ?? []).map((e) => e.close())]);
});
const service = poolServiceForSuite(() => [
  { id: 'dc-a', url: exits[0].url, tier: 'datacenter', country: 'NL', provider: 'own' },
  { id: 'dc-b', url: exits[1].url, tier: 'datacenter', country: 'NL', provider: 'own' },
  { id: 'resi-socks', url: exits[2].url, tier: 'residential', country: 'FR', provider: 'socksy' },
  {
    id: 'resi-gw',
    url: `http://127.0.0.1:${gateway.port}`,
    username_template: 'cust-{country}-sess-{session}',
    password: 'secret',
    tier: 'residential',
    countries: ['US', 'DE'],
    provider: 'bigresi',
  },
]);

const lastSeen = (): string | undefined => target.seen().at(-1);

describe('managed pool selection', () => {
  it('sends a plain request through the datacenter exits in turn, at the datacenter price', async () => {
    const before = target.seen().length;
    const charged: string[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await service.scrape({ url: target.url });
      expect(response.status).toBe(200);
      charged.push(response.headers.get('x-credits-charged') ?? '');
    }
    expect(charged).toEqual(['1', '1', '1', '1']);
    const seen = target.seen().slice(before);
    expect(seen.filter((a) => a === '127.0.0.2')).toHaveLength(2);
    expect(seen.filter((a) => a === '127.0.0.3')).toHaveLength(2);
  });

  it('fills the request log proxy object with the exit that served, never its credentials', async () => {
    const response = await service.scrape({ url: target.url });
    const entry = await service.logEntry(response.headers.get('x-request-id'));
    const proxy = entry.proxy as Record<string, unknown>;
    expect(proxy.source).toBe('pool');
    expect(['dc-a', 'dc-b']).toContain(proxy.endpoint_id);
    expect(proxy.provider).toBe('own');
    expect(proxy.country).toBe('NL');
    expect(proxy.sticky).toBe(false);
    expect(proxy.reason).toBe('rotation');
    expect(proxy.endpoints).toEqual([proxy.endpoint_id]);
    expect(JSON.stringify(entry)).not.toContain('p@ss');
    expect(JSON.stringify(entry)).not.toContain('p%40ss');
  });

  it('takes a residential exit with premium_proxy at the residential price', async () => {
    const before = await service.spentMicro();
    const response = await service.scrape({ url: target.url, premium_proxy: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-credits-charged')).toBe('10');
    expect((await service.spentMicro()) - before).toBe(10_000_000);
    expect(['127.0.0.4', '127.0.0.10', '127.0.0.11', '127.0.0.12', '127.0.0.20', '127.0.0.21', '127.0.0.22']).toContain(lastSeen());
    const entry = await service.logEntry(response.headers.get('x-request-id'));
    expect((entry.proxy as Record<string, unknown>).requested_tier).toBe('residential');
    expect(entry.credits_micro).toBe(10_000_000);
  });

  it('reaches the target through a SOCKS5 exit', async () => {
    const response = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'fr' });
    expect(response.status).toBe(200);
    expect(lastSeen()).toBe('127.0.0.4');
    expect(exits[2].requests()).toBeGreaterThan(0);
  });

  it('asks a provider gateway for the country in its username template', async () => {
    const response = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'DE' });
    expect(response.status).toBe(200);
    expect(['127.0.0.20', '127.0.0.21', '127.0.0.22']).toContain(lastSeen());
    expect(gateway.usernames().at(-1)).toMatch(/^cust-de-sess-[a-z0-9]+$/);
    const entry = await service.logEntry(response.headers.get('x-request-id'));
    const proxy = entry.proxy as Record<string, unknown>;
    expect(proxy).toMatchObject({ source: 'pool', endpoint_id: 'resi-gw.de', provider: 'bigresi', requested_country: 'DE', country: 'DE' });
  });

  it('answers 503 EXHAUSTED naming a country no exit serves, at 0 credits', async () => {
    const response = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'JP' });
    expect(response.status).toBe(503);
    expect(response.headers.get('x-credits-charged')).toBe('0');
    const problem = (await response.json()) as { code: string; detail: string };
    expect(problem.code).toBe('ERR::PROXY::EXHAUSTED');
    expect(problem.detail).toContain('JP');
  });

  it('keeps one exit for every request sharing a sticky_key, and a provider session per key', async () => {
    const addresses = new Set<string>();
    const usernames = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const response = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'US', sticky_key: 'cart-42' });
      expect(response.status).toBe(200);
      addresses.add(lastSeen() ?? '');
      usernames.add(gateway.usernames().at(-1) ?? '');
    }
    expect(addresses.size).toBe(1);
    expect(usernames.size).toBe(1);
    const response = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'US', sticky_key: 'cart-42' });
    const proxy = (await service.logEntry(response.headers.get('x-request-id'))).proxy as Record<string, unknown>;
    expect(proxy).toMatchObject({ sticky: true, reason: 'sticky', endpoint_id: 'resi-gw.us' });
  });

  it('rotates the provider session without a sticky_key', async () => {
    const before = gateway.usernames().length;
    for (let i = 0; i < 3; i++) await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'US' });
    expect(new Set(gateway.usernames().slice(before)).size).toBe(3);
  });

  it("lets a caller's own proxy win over premium_proxy, with PROXY_FLAG_IGNORED and no proxy credits", async () => {
    const response = await service.scrape({ url: target.url, proxy: exits[0].url, premium_proxy: true, proxy_country: 'DE' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-warning')).toContain('PROXY_FLAG_IGNORED');
    expect(response.headers.get('x-credits-charged')).toBe('1');
    expect(lastSeen()).toBe('127.0.0.2');
    const proxy = (await service.logEntry(response.headers.get('x-request-id'))).proxy as Record<string, unknown>;
    expect(proxy).toMatchObject({ source: 'custom', reason: 'caller_proxy', sticky: false });
  });

  it('refuses proxy_country without premium_proxy (400) as before', async () => {
    const response = await service.scrape({ url: target.url, proxy_country: 'DE' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('ERR::REQUEST::INCOMPATIBLE_FLAGS');
  });
});
