import { beforeAll, describe, expect, it } from 'vitest';
import { embeddedForSuite } from '../support/suite-service.js';
import { createdSession, otherTenantKey, sessionsClient } from './sessions-client.js';
import { problemOf } from '../support/answers.js';

const service = embeddedForSuite({ engines: ['fetch'], env: { DEFAULT_RATE_LIMIT_PER_SECOND: '1000' } });
let api: ReturnType<typeof sessionsClient>;

beforeAll(() => {
  api = sessionsClient(service);
});

describe('POST /v1/sessions', () => {
  it('creates an active fetch session with every default from an empty body', async () => {
    const before = Date.now();
    const session = await createdSession(await api.create());
    expect(session.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(session.project_id).toBe(service.projectId);
    expect(session.engine).toBe('fetch');
    expect(session.status).toBe('active');
    expect(session.sticky_key).toBe(session.id.toLowerCase());
    expect(session.proxy).toEqual({ tier: 'none', country: null, region_pool: null });
    expect(session.usage_count).toBe(0);
    expect(session.last_used_at).toBeNull();
    expect(session.context).toEqual({ schema_version: 1, cookies: 0, origins: 0, bytes: expect.any(Number) });
    const ttl = new Date(session.expires_at).getTime() - new Date(session.created_at).getTime();
    expect(ttl).toBe(1800 * 1000);
    expect(new Date(session.hard_expires_at ?? 0).getTime() - new Date(session.created_at).getTime()).toBe(604800 * 1000);
    expect(new Date(session.created_at).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(session).not.toHaveProperty('warnings');
    expect(session).not.toHaveProperty('released_at');
    expect(session).not.toHaveProperty('lease');
  });

  it('treats {} like an empty body and takes the engine name in any case', async () => {
    expect((await createdSession(await api.create({}))).engine).toBe('fetch');
    expect((await createdSession(await api.create({ engine: 'FETCH' }))).engine).toBe('fetch');
  });

  it('refuses an undeployed render engine with 503 naming the deployed engines, and creates nothing', async () => {
    const before = await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions');
    const body = await problemOf(await api.create({ engine: 'obscura' }), { status: 503, code: 'ERR::ENGINE::UNAVAILABLE' });
    expect(body.detail).toContain('fetch');
    const after = await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('refuses unknown fields, bad types and an unknown engine with 400', async () => {
    const unknown = await problemOf(await api.create({ engnie: 'fetch' }), { status: 400, code: 'ERR::REQUEST::INVALID_PARAMETER' });
    expect(unknown.detail).toContain('engnie');
    await problemOf(await api.create({ engine: 'lynx' }), { status: 400, code: 'ERR::REQUEST::INVALID_PARAMETER' });
    await problemOf(await api.create({ ttl_seconds: 'long' }), { status: 400, code: 'ERR::REQUEST::INVALID_PARAMETER' });
    await problemOf(await api.create({ ttl_seconds: -5 }), { status: 400, code: 'ERR::REQUEST::INVALID_PARAMETER' });
    await problemOf(await api.create([1]), { status: 400, code: 'ERR::REQUEST::INVALID' });
  });

  it('keeps an explicit ttl, treats 0 as the default, and refuses a ttl above the maximum without clamping', async () => {
    const short = await createdSession(await api.create({ ttl_seconds: 60 }));
    expect(new Date(short.expires_at).getTime() - new Date(short.created_at).getTime()).toBe(60_000);
    const zero = await createdSession(await api.create({ ttl_seconds: 0 }));
    expect(new Date(zero.expires_at).getTime() - new Date(zero.created_at).getTime()).toBe(1800_000);
    const above = await problemOf(await api.create({ ttl_seconds: 604801 }), { status: 400, code: 'ERR::REQUEST::INVALID_PARAMETER' });
    expect(above.detail).toContain('604800');
  });

  it('reduces the default ttl to a lower organization maximum with a warning', async () => {
    const secret = await otherTenantKey(service.db, { maxTtlSeconds: 600 });
    const session = await createdSession(await sessionsClient(service, secret).create({}));
    expect(new Date(session.expires_at).getTime() - new Date(session.created_at).getTime()).toBe(600_000);
    expect(session.warnings?.[0]).toContain('600');
    const above = await problemOf(await sessionsClient(service, secret).create({ ttl_seconds: 601 }), { status: 400, code: 'ERR::REQUEST::INVALID_PARAMETER' });
    expect(above.detail).toContain('600');
  });

  it('checks sticky_key syntax, keeps it unique among active sessions, and makes it exclusive with rotate_ip', async () => {
    for (const bad of ['-lead', 'trail-', 'under_score', 'sp ace', '']) {
      await problemOf(await api.create({ sticky_key: bad }), { status: 400, code: 'ERR::REQUEST::INVALID_PARAMETER' });
    }
    const first = await createdSession(await api.create({ sticky_key: 'shop-1' }));
    expect(first.sticky_key).toBe('shop-1');
    await problemOf(await api.create({ sticky_key: 'shop-1' }), { status: 409, code: 'ERR::REQUEST::CONFLICT' });
    await problemOf(await api.create({ sticky_key: 'SHOP-1' }), { status: 409, code: 'ERR::REQUEST::CONFLICT' });
    expect((await api.release(first.id)).status).toBe(200);
    expect((await createdSession(await api.create({ sticky_key: 'shop-1' }))).sticky_key).toBe('shop-1');
    await problemOf(await api.create({ sticky_key: 'abc', rotate_ip: true }), { status: 400, code: 'ERR::REQUEST::INCOMPATIBLE_FLAGS' });
    expect((await createdSession(await api.create({ rotate_ip: true }))).sticky_key).toBe('');
  });

  it('trims region_pool and refuses one over 64 characters', async () => {
    const session = await createdSession(await api.create({ region_pool: '  eu-west  ' }));
    expect(session.proxy.region_pool).toBe('eu-west');
    await problemOf(await api.create({ region_pool: 'x'.repeat(65) }), { status: 400, code: 'ERR::REQUEST::INVALID_PARAMETER' });
    expect((await api.create({ region_pool: ` ${'x'.repeat(64)} ` })).status).toBe(201);
  });

  it('answers premium_proxy with 503 PROXY::EXHAUSTED (no managed pool) and proxy_country alone with 400', async () => {
    await problemOf(await api.create({ premium_proxy: true }), { status: 503, code: 'ERR::PROXY::EXHAUSTED' });
    await problemOf(await api.create({ proxy_country: 'de' }), { status: 400, code: 'ERR::REQUEST::INCOMPATIBLE_FLAGS' });
    await problemOf(await api.create({ premium_proxy: false, proxy_country: 'de' }), { status: 400, code: 'ERR::REQUEST::INCOMPATIBLE_FLAGS' });
    await problemOf(await api.create({ premium_proxy: true, proxy_country: 'germany' }), { status: 400, code: 'ERR::REQUEST::INVALID_PARAMETER' });
  });

  it('accepts fingerprint null or {} on any engine and refuses a real one off camoufox', async () => {
    expect((await api.create({ fingerprint: null })).status).toBe(201);
    const empty = await createdSession(await api.create({ fingerprint: {} }));
    expect(empty).not.toHaveProperty('fingerprint');
    await problemOf(await api.create({ fingerprint: { ua: 'x' } }), { status: 400, code: 'ERR::REQUEST::INCOMPATIBLE_FLAGS' });
    await problemOf(await api.create({ engine: 'camoufox', fingerprint: { ua: 'x' } }), { status: 503, code: 'ERR::ENGINE::UNAVAILABLE' });
  });

  it('stores domain_scores, refuses negative scores, and evicts down to 64 entries with a warning', async () => {
    const one = await createdSession(await api.create({ domain_scores: { 'example.com': { score: 2, good: 3, bad: 1, last_updated: 100 } } }));
    expect(one.domain_scores?.['example.com']).toEqual({ score: 2, good: 3, bad: 1, last_updated: 100, retired: false });
    await problemOf(await api.create({ domain_scores: { 'example.com': { score: -1 } } }), { status: 400, code: 'ERR::REQUEST::INVALID_PARAMETER' });
    await problemOf(await api.create({ domain_scores: { 'Example.COM': { score: 1 } } }), { status: 400, code: 'ERR::REQUEST::INVALID_PARAMETER' });
    const many: Record<string, unknown> = { 'retired.com': { score: 1, last_updated: 9999, retired: true } };
    for (let i = 0; i < 64; i++) many[`site${i}.com`] = { score: 1, last_updated: 1000 + i };
    const evicted = await createdSession(await api.create({ domain_scores: many }));
    expect(Object.keys(evicted.domain_scores ?? {})).toHaveLength(64);
    expect(evicted.domain_scores).not.toHaveProperty('retired.com');
    expect(evicted.domain_scores).toHaveProperty('site0.com');
    expect(evicted.warnings?.[0]).toContain('evicted');
  });

  it('stores an initial session_context and refuses one over 1 MiB with 413', async () => {
    const session = await createdSession(
      await api.create({
        session_context: {
          cookies: [{ name: 'sid', value: 'abc', domain: 'example.com' }],
          local_storage: { 'https://example.com': { k: 'v' } },
        },
      }),
    );
    expect(session.context).toMatchObject({ schema_version: 1, cookies: 1, origins: 1 });
    const big = { cookies: [{ name: 'big', value: 'x'.repeat(1_048_600), domain: 'example.com' }] };
    await problemOf(await api.create({ session_context: big }), { status: 413, code: 'ERR::REQUEST::PAYLOAD_TOO_LARGE' });
    await problemOf(await api.create({ session_context: { cookies: [{ name: 'a' }] } }), { status: 400, code: 'ERR::REQUEST::INVALID_PARAMETER' });
    await problemOf(await api.create({ session_context: { extra: {} } }), { status: 400, code: 'ERR::REQUEST::INVALID_PARAMETER' });
  });

  it('refuses the 101st live session of an organization with 429 and Retry-After 30', async () => {
    const secret = await otherTenantKey(service.db);
    const tenant = sessionsClient(service, secret);
    const first = await createdSession(await tenant.create());
    const { rows } = await service.db.query<{ organization_id: string; project_id: string }>(
      'SELECT organization_id, project_id FROM sessions WHERE id = $1',
      [first.id],
    );
    await service.db.query(
      `INSERT INTO sessions (id, organization_id, project_id, engine, sticky_key, proxy, ttl_seconds, created_at, expires_at)
       SELECT 'FILL' || lpad(n::text, 22, '0'), $1, $2, 'fetch', '', '{}'::jsonb, 1800, now(), now() + interval '1 hour'
       FROM generate_series(1, 99) AS n`,
      [rows[0].organization_id, rows[0].project_id],
    );
    const refused = await tenant.create();
    expect(refused.headers.get('retry-after')).toBe('30');
    await problemOf(refused, { status: 429, code: 'ERR::LIMIT::SESSIONS_EXCEEDED' });
    expect((await tenant.release(first.id)).status).toBe(200);
    expect((await tenant.create()).status).toBe(201);
    // Another organization is not affected by this one's limit.
    expect((await api.create()).status).toBe(201);
  });

  it('needs the sessions scope', async () => {
    const secret = await otherTenantKey(service.db, { scopes: ['scrape'] });
    const response = await sessionsClient(service, secret).create();
    const body = await problemOf(response, { status: 403, code: 'ERR::AUTH::INSUFFICIENT_SCOPE' });
    expect(body.detail).toContain('sessions');
  });
});
