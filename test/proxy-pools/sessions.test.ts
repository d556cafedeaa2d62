import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, jsonPost } from '../support/embedded.js';
import { startExitTarget, startProviderGateway, type ExitServer, type ExitTarget } from '../support/pool-exits.js';
import { poolServiceForSuite } from '../support/pool-service.js';

let target: ExitTarget;
let provider: ExitServer;

beforeAll(async () => {
  target = await startExitTarget();
  provider = await startProviderGateway({ US: ['127.0.0.50', '127.0.0.51', '127.0.0.52', '127.0.0.53'] });
});

afterAll(async () => {
  await Promise.all([target?.close(), provider?.close()]);
});
const service = poolServiceForSuite(() => [
  { id: 'gw', url: `http://127.0.0.1:${provider.port}`, username_template: 'cust-{country}-sess-{session}', password: 'secret', tier: 'residential', countries: ['US'], region: 'us-east' },
]);

type Session = { id: string; sticky_key: string; proxy: Record<string, unknown>; domain_scores?: Record<string, Record<string, unknown>> };

const createSession = (body: Record<string, unknown>) => fetch(`${service.url}/v1/sessions`, jsonPost(service.secret, body));
const readSession = async (id: string): Promise<Session> => (await (await fetch(`${service.url}/v1/sessions/${id}`, authed(service.secret))).json()) as Session;
const sessionCount = async (): Promise<number> => Number((await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions')).rows[0].n);

describe('sessions with an exit intent', () => {
  it('creates a residential session in a country and keeps one exit for its scrapes, at the residential price', async () => {
    const created = await createSession({ premium_proxy: true, proxy_country: 'us', sticky_key: 'shop-1' });
    expect(created.status).toBe(201);
    const session = (await created.json()) as Session;
    expect(session.proxy).toEqual({ tier: 'residential', country: 'US', region_pool: null });
    expect(session.sticky_key).toBe('shop-1');
    const addresses = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const response = await service.scrape({ url: target.url, session_id: session.id });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-credits-charged')).toBe('10');
      addresses.add(target.seen().at(-1) ?? '');
    }
    expect(addresses.size).toBe(1);
    const scores = (await readSession(session.id)).domain_scores?.['127.0.0.1'];
    expect(scores).toMatchObject({ good: 3, bad: 0, retired: false });
    expect(scores?.score).toBeGreaterThan(0.5);
  });

  it('lets the exit change with rotate_ip, and answers the empty sticky_key', async () => {
    const created = await createSession({ premium_proxy: true, proxy_country: 'US', rotate_ip: true });
    expect(created.status).toBe(201);
    const session = (await created.json()) as Session;
    expect(session.sticky_key).toBe('');
    const before = provider.usernames().length;
    for (let i = 0; i < 3; i++) expect((await service.scrape({ url: target.url, session_id: session.id })).status).toBe(200);
    expect(new Set(provider.usernames().slice(before)).size).toBe(3);
  });

  it('matches region_pool against the exits region labels', async () => {
    expect((await createSession({ premium_proxy: true, region_pool: ' us-east ' })).status).toBe(201);
    const before = await sessionCount();
    const refused = await createSession({ premium_proxy: true, region_pool: 'eu-west' });
    expect(refused.status).toBe(503);
    expect(await sessionCount()).toBe(before);
  });

  it('answers 503 EXHAUSTED and creates nothing when no exit serves the country', async () => {
    const before = await sessionCount();
    const response = await createSession({ premium_proxy: true, proxy_country: 'JP' });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { code: string; retryable: boolean }).code).toBe('ERR::PROXY::EXHAUSTED');
    expect(await sessionCount()).toBe(before);
  });

  it('refuses a sticky_key an active session of the project holds (409) and the flag combinations (400)', async () => {
    expect((await createSession({ premium_proxy: true, sticky_key: 'dup-1' })).status).toBe(201);
    const duplicate = await createSession({ premium_proxy: true, sticky_key: 'DUP-1' });
    expect(duplicate.status).toBe(409);
    expect(((await duplicate.json()) as { code: string }).code).toBe('ERR::REQUEST::CONFLICT');
    expect((await createSession({ sticky_key: 'a', rotate_ip: true })).status).toBe(400);
    expect((await createSession({ proxy_country: 'US' })).status).toBe(400);
    expect((await createSession({ sticky_key: '-bad' })).status).toBe(400);
    expect((await createSession({ region_pool: 'x'.repeat(65) })).status).toBe(400);
  });

  it('records a challenge met by a session scrape as bad evidence for the domain', async () => {
    const session = (await (await createSession({ premium_proxy: true, proxy_country: 'US', sticky_key: 'shop-2' })).json()) as Session;
    expect((await service.scrape({ url: target.url, session_id: session.id })).status).toBe(200);
    target.challenge([target.seen().at(-1) ?? '']);
    const challenged = await service.scrape({ url: target.url, session_id: session.id });
    target.challenge([]);
    expect(challenged.status).toBe(502);
    expect((await readSession(session.id)).domain_scores?.['127.0.0.1']).toMatchObject({ good: 1, bad: 1 });
  });
});
