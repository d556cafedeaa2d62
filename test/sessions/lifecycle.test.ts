import { beforeAll, describe, expect, it } from 'vitest';
import { uuidFromUlid } from '../../gateway/request-log/record-id.js';
import { authed, jsonPost } from '../support/embedded.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { createdSession, expireSession, otherTenantKey, sessionsClient, type Problem, type SessionJson } from './sessions-client.js';
import { codeOf } from '../support/answers.js';

const service = embeddedForSuite({ engines: ['fetch'], env: { DEFAULT_RATE_LIMIT_PER_SECOND: '1000' } });
let api: ReturnType<typeof sessionsClient>;

beforeAll(() => {
  api = sessionsClient(service);
});

const CONTEXT = {
  cookies: [{ name: 'sid', value: 'abc', domain: '.example.com', path: '/', expires: 2000000000, http_only: true, secure: true, same_site: 'strict' }],
  local_storage: { 'https://example.com': { theme: 'dark' } },
};

describe('reading sessions', () => {
  it('GET one returns the session record; the UUID form of the id works too', async () => {
    const created = await createdSession(await api.create({ sticky_key: 'read-me' }));
    const byId = await api.get(created.id);
    expect(byId.status).toBe(200);
    expect(byId.headers.get('cache-control')).toBe('no-store');
    const body = (await byId.json()) as SessionJson;
    expect(body).toEqual({ ...created, warnings: undefined });
    expect(((await (await api.get(uuidFromUlid(created.id))).json()) as SessionJson).id).toBe(created.id);
    expect(((await (await api.get(created.id.toLowerCase())).json()) as SessionJson).id).toBe(created.id);
  });

  it('GET /context returns the context without sliding the TTL or counting a use', async () => {
    const created = await createdSession(await api.create({ session_context: CONTEXT }));
    const response = await api.context(created.id);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store, private');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      session_id: created.id,
      schema_version: 1,
      usage_count: 0,
      last_used_at: null,
      expires_at: created.expires_at,
      created_at: created.created_at,
      fingerprint: null,
      session_context: {
        cookies: [{ ...CONTEXT.cookies[0], same_site: 'Strict' }],
        local_storage: CONTEXT.local_storage,
        session_storage: {},
        indexed_db: {},
      },
    });
    expect(body.warning).toEqual(expect.stringContaining('destroyed'));
    const after = (await (await api.get(created.id)).json()) as SessionJson;
    expect(after.expires_at).toBe(created.expires_at);
    expect(after.usage_count).toBe(0);
  });

  it('answers 500 STATE_CORRUPT when the stored context cannot be read', async () => {
    const created = await createdSession(await api.create());
    await service.db.query(`UPDATE sessions SET context = '{"schema_version": 99}'::jsonb WHERE id = $1`, [created.id]);
    const response = await api.context(created.id);
    expect(await codeOf(response, 500)).toBe('ERR::SESSION::STATE_CORRUPT');
  });

  it('gives 404 NOT_FOUND for malformed, unknown and other-tenant ids on every route', async () => {
    const created = await createdSession(await api.create());
    const other = sessionsClient(service, await otherTenantKey(service.db));
    for (const id of ['nope', '01ARZ3NDEKTSV4RRFFQ69G5FAV', 'x'.repeat(40)]) {
      expect(await codeOf(await api.get(id), 404)).toBe('ERR::SESSION::NOT_FOUND');
    }
    expect(await codeOf(await other.get(created.id), 404)).toBe('ERR::SESSION::NOT_FOUND');
    expect(await codeOf(await other.context(created.id), 404)).toBe('ERR::SESSION::NOT_FOUND');
    expect(await codeOf(await other.release(created.id), 404)).toBe('ERR::SESSION::NOT_FOUND');
    expect(await codeOf(await other.remove(created.id), 404)).toBe('ERR::SESSION::NOT_FOUND');
    expect(((await (await api.get(created.id)).json()) as SessionJson).status).toBe('active');
  });
});

describe('listing sessions', () => {
  it('pages newest first with an opaque cursor, filters by status, and never shows another tenant', async () => {
    const secret = await otherTenantKey(service.db);
    const tenant = sessionsClient(service, secret);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createdSession(await tenant.create())).id);
    await tenant.release(ids[0]);
    await expireSession(service.db, ids[1]);

    const first = (await (await tenant.list('?limit=2')).json()) as { sessions: SessionJson[]; next_cursor?: string };
    expect(first.sessions.map((s) => s.id)).toEqual([ids[4], ids[3]]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (await (await tenant.list(`?limit=2&cursor=${first.next_cursor}`)).json()) as { sessions: SessionJson[]; next_cursor?: string };
    expect(second.sessions.map((s) => s.id)).toEqual([ids[2], ids[1]]);
    const last = (await (await tenant.list(`?limit=2&cursor=${second.next_cursor}`)).json()) as { sessions: SessionJson[]; next_cursor?: string };
    expect(last.sessions.map((s) => s.id)).toEqual([ids[0]]);
    expect(last).not.toHaveProperty('next_cursor');

    const statusOf = async (status: string) =>
      ((await (await tenant.list(`?status=${status}`)).json()) as { sessions: SessionJson[] }).sessions.map((s) => s.id);
    expect(await statusOf('released')).toEqual([ids[0]]);
    expect(await statusOf('EXPIRED')).toEqual([ids[1]]);
    expect(await statusOf('active')).toEqual([ids[4], ids[3], ids[2]]);

    const mine = (await (await api.list('?limit=200')).json()) as { sessions: SessionJson[] };
    expect(mine.sessions.some((s) => ids.includes(s.id))).toBe(false);
  });

  it('refuses a limit outside 1..200, a forged cursor, an unknown status or parameter with 400', async () => {
    for (const query of ['?limit=0', '?limit=201', '?limit=abc', '?cursor=forged', '?status=running', '?colour=red']) {
      expect(await codeOf(await api.list(query), 400)).toBe('ERR::REQUEST::INVALID_PARAMETER');
    }
    const defaults = (await (await api.list()).json()) as { sessions: unknown[] };
    expect(defaults.sessions.length).toBeLessThanOrEqual(50);
  });
});

describe('release, expiry and delete', () => {
  it('releases: context null, readable after, releasing again gives the same body, scrape and context give 410', async () => {
    const created = await createdSession(await api.create({ session_context: CONTEXT }));
    const released = await api.release(created.id);
    expect(released.status).toBe(200);
    const body = (await released.json()) as SessionJson;
    expect(body.status).toBe('released');
    expect(body.context).toBeNull();
    expect(body.released_at).toEqual(expect.any(String));
    const again = (await (await api.release(created.id)).json()) as SessionJson;
    expect(again).toEqual(body);
    expect(((await (await api.get(created.id)).json()) as SessionJson).status).toBe('released');
    expect(await codeOf(await api.context(created.id), 410)).toBe('ERR::SESSION::RELEASED');
    const stored = await service.db.query<{ context: unknown }>('SELECT context FROM sessions WHERE id = $1', [created.id]);
    expect(stored.rows[0].context).toBeNull();
  });

  it('expires by the clock: status expired, context 410 EXPIRED, and an expired session can be released', async () => {
    const created = await createdSession(await api.create());
    await expireSession(service.db, created.id);
    const expired = (await (await api.get(created.id)).json()) as SessionJson;
    expect(expired.status).toBe('expired');
    expect(expired.context).toBeNull();
    expect(await codeOf(await api.context(created.id), 410)).toBe('ERR::SESSION::EXPIRED');
    const released = (await (await api.release(created.id)).json()) as SessionJson;
    expect(released.status).toBe('released');
  });

  it('purges the stored context of expired sessions', async () => {
    const created = await createdSession(await api.create({ session_context: CONTEXT }));
    await expireSession(service.db, created.id);
    await api.create();
    const stored = await service.db.query<{ context: unknown }>('SELECT context FROM sessions WHERE id = $1', [created.id]);
    expect(stored.rows[0].context).toBeNull();
  });

  it('parses force exactly: true/false/1/0/t/f in any case, anything else 400', async () => {
    for (const value of ['TRUE', 'false', '1', '0', 'T', 'f']) {
      const created = await createdSession(await api.create());
      expect((await api.release(created.id, `?force=${value}`)).status).toBe(200);
    }
    const created = await createdSession(await api.create());
    for (const value of ['yes', '2', '', 'on']) {
      expect(await codeOf(await api.release(created.id, `?force=${value}`), 400)).toBe('ERR::REQUEST::INVALID_PARAMETER');
    }
  });

  it('refuses a body on release and delete with 400 naming force as a query parameter, and changes nothing', async () => {
    const created = await createdSession(await api.create());
    const base = `${service.url}/v1/sessions/${created.id}`;
    const chunked = new ReadableStream<Uint8Array>({
      start: (controller) => {
        controller.enqueue(new TextEncoder().encode('{"force":true}'));
        controller.close();
      },
    });
    // Node's fetch needs `duplex` for a stream body (sent chunked); the DOM RequestInit type lacks it.
    const streamed: RequestInit & { duplex: 'half' } = { method: 'POST', body: chunked, duplex: 'half' };
    const attempts: Array<[string, RequestInit]> = [
      [`${base}/release`, jsonPost(service.secret, { force: true })],
      [`${base}/release`, authed(service.secret, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'force' })],
      [`${base}/release`, authed(service.secret, streamed)],
      [base, authed(service.secret, { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: '{}' })],
    ];
    for (const [url, init] of attempts) {
      const response = await fetch(url, init);
      expect(response.status).toBe(400);
      const problem = (await response.json()) as Problem;
      expect(problem.code).toBe('ERR::REQUEST::INVALID_PARAMETER');
      expect(problem.detail).toMatch(/no request body.*force is a query parameter/);
    }
    expect(((await (await api.get(created.id)).json()) as SessionJson).status).toBe('active');
    expect((await api.release(created.id, '?force=true')).status).toBe(200);
    expect((await api.remove(created.id)).status).toBe(204);
  });

  it('refuses release and delete with 409 BUSY and Retry-After while a lease is held, unless forced', async () => {
    const created = await createdSession(await api.create());
    await service.db.query(`UPDATE sessions SET lease_holder = 'someone', lease_expires_at = now() + interval '1 minute' WHERE id = $1`, [
      created.id,
    ]);
    const leased = (await (await api.get(created.id)).json()) as SessionJson;
    expect(leased.lease?.holder).toBe('someone');
    const busy = await api.release(created.id);
    expect(busy.headers.get('retry-after')).toMatch(/^[1-5]$/);
    expect(await codeOf(busy, 409)).toBe('ERR::SESSION::BUSY');
    expect(await codeOf(await api.remove(created.id), 409)).toBe('ERR::SESSION::BUSY');
    const forced = (await (await api.release(created.id, '?force=true')).json()) as SessionJson;
    expect(forced.status).toBe('released');
    expect(forced).not.toHaveProperty('lease');
  });

  it('ignores a lease that has run out (a crashed holder cannot block forever)', async () => {
    const created = await createdSession(await api.create());
    await service.db.query(`UPDATE sessions SET lease_holder = 'gone', lease_expires_at = now() - interval '1 second' WHERE id = $1`, [
      created.id,
    ]);
    expect((await api.release(created.id)).status).toBe(200);
  });

  it('DELETE removes the session for good: 204, then 404 everywhere', async () => {
    const created = await createdSession(await api.create());
    const deleted = await api.remove(created.id);
    expect(deleted.status).toBe(204);
    expect(await codeOf(await api.get(created.id), 404)).toBe('ERR::SESSION::NOT_FOUND');
    expect(await codeOf(await api.remove(created.id), 404)).toBe('ERR::SESSION::NOT_FOUND');
  });

  it('answers an unsupported method with 400 and an Allow header', async () => {
    const created = await createdSession(await api.create());
    const response = await fetch(`${service.url}/v1/sessions/${created.id}/release`, { method: 'GET', headers: { authorization: `Bearer ${service.secret}` } });
    expect(response.status).toBe(400);
    expect(response.headers.get('allow')).toBe('POST');
  });
});
