import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import {
  createdSession,
  expireSession,
  reservationCount,
  sessionsClient,
  startHeldPage,
  startStatusPage,
  type Problem,
  type SessionJson,
} from './sessions-client.js';

let site: TargetSite;
let api: ReturnType<typeof sessionsClient>;

beforeAll(async () => {
  site = await startTargetSite();
});
afterAll(async () => {
  await site?.close();
});
const service = embeddedForSuite({ engines: ['fetch'], env: { DEFAULT_RATE_LIMIT_PER_SECOND: '1000' } });
beforeAll(() => {
  api = sessionsClient(service);
});

interface Echo {
  headers: Record<string, string>;
}

const session = async (body: Record<string, unknown> = {}) => createdSession(await api.create(body));
const read = async (id: string) => (await (await api.get(id)).json()) as SessionJson;

describe('scrape with session_id (fetch)', () => {
  it('keeps a cookie the target set on request 1 and sends it on request 2', async () => {
    const created = await session();
    const first = await api.scrape({ url: `${site.origin}/cookies/set?visitor=42&lang=en`, session_id: created.id });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-engine')).toBe('fetch');
    expect(first.headers.get('x-credits-charged')).toBe('1');
    expect(first.headers.get('cache-state')).toBe('bypass');

    const second = await api.scrape({ url: `${site.origin}/echo`, session_id: created.id });
    expect(second.status).toBe(200);
    const echo = (await second.json()) as Echo;
    expect(echo.headers.cookie).toBe('visitor=42; lang=en');

    const after = await read(created.id);
    expect(after.usage_count).toBe(2);
    expect(after.last_used_at).not.toBeNull();
    expect(after.context?.cookies).toBe(2);
    expect(new Date(after.expires_at).getTime()).toBeGreaterThan(new Date(created.expires_at).getTime());
    const context = (await (await api.context(created.id)).json()) as { session_context: { cookies: Array<{ name: string; domain: string }> } };
    expect(context.session_context.cookies.map((c) => `${c.name}@${c.domain}`).sort()).toEqual(['lang@127.0.0.1', 'visitor@127.0.0.1']);
  });

  it('sends the cookies given in session_context at create', async () => {
    const created = await session({ session_context: { cookies: [{ name: 'token', value: 'seeded', domain: '127.0.0.1' }] } });
    const echo = (await (await api.scrape({ url: `${site.origin}/echo`, session_id: created.id })).json()) as Echo;
    expect(echo.headers.cookie).toBe('token=seeded');
  });

  it('never slides expires_at past hard_expires_at', async () => {
    const created = await session();
    const ceiling = new Date(Date.now() + 60_000);
    await service.db.query('UPDATE sessions SET hard_expires_at = $2, expires_at = $3 WHERE id = $1', [
      created.id,
      ceiling,
      new Date(Date.now() + 30_000),
    ]);
    expect((await api.scrape({ url: `${site.origin}/`, session_id: created.id })).status).toBe(200);
    expect(new Date((await read(created.id)).expires_at).getTime()).toBe(ceiling.getTime());
  });

  it('refuses unknown, released and expired sessions and a different engine, before any work at 0 credits', async () => {
    const released = await session();
    await api.release(released.id);
    const expired = await session();
    await expireSession(service.db, expired.id);
    const live = await session();
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ session_id: 'not-a-session' }, 404, 'ERR::SESSION::NOT_FOUND'],
      [{ session_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }, 404, 'ERR::SESSION::NOT_FOUND'],
      [{ session_id: released.id }, 410, 'ERR::SESSION::RELEASED'],
      [{ session_id: expired.id }, 410, 'ERR::SESSION::EXPIRED'],
      [{ session_id: live.id, engine: 'chromium' }, 400, 'ERR::REQUEST::INCOMPATIBLE_FLAGS'],
    ];
    const hitsBefore = site.hits('/echo');
    const reservationsBefore = await reservationCount(service.db);
    for (const [extra, status, code] of cases) {
      const response = await api.scrape({ url: `${site.origin}/echo`, ...extra });
      expect(response.status).toBe(status);
      expect(response.headers.get('x-credits-charged')).toBe('0');
      expect(((await response.json()) as Problem).code).toBe(code);
    }
    expect(site.hits('/echo')).toBe(hitsBefore);
    expect(await reservationCount(service.db)).toBe(reservationsBefore);
    expect((await read(live.id)).usage_count).toBe(0);
  });

  it('counts nothing for a failed scrape and frees the lease', async () => {
    const created = await session();
    const failed = await api.scrape({ url: `${site.origin}/reset`, session_id: created.id });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(failed.headers.get('x-credits-charged')).toBe('0');
    const after = await read(created.id);
    expect(after.usage_count).toBe(0);
    expect(after.last_used_at).toBeNull();
    expect(after.expires_at).toBe(created.expires_at);
    expect(after).not.toHaveProperty('lease');
    expect((await api.release(created.id)).status).toBe(200);
  });

  it('counts nothing and saves no cookie when the target answers a non-billable status (500, 403)', async () => {
    for (const status of [500, 403]) {
      const page = await startStatusPage(status);
      try {
        const created = await session();
        const response = await api.scrape({ url: page.url, session_id: created.id });
        expect(response.status).toBe(200);
        expect(response.headers.get('x-target-status')).toBe(String(status));
        expect(response.headers.get('x-credits-charged')).toBe('0');
        const after = await read(created.id);
        expect(after.usage_count).toBe(0);
        expect(after.last_used_at).toBeNull();
        expect(after.expires_at).toBe(created.expires_at);
        expect(after.context?.cookies).toBe(0);
        expect(after).not.toHaveProperty('lease');
        const echo = (await (await api.scrape({ url: `${site.origin}/echo`, session_id: created.id })).json()) as Echo;
        expect(echo.headers.cookie).toBeUndefined();
      } finally {
        await page.close();
      }
    }
  });

  it('counts a status listed in allowed_status_codes as a success', async () => {
    const created = await session();
    const response = await api.scrape({ url: `${site.origin}/status/500`, session_id: created.id, allowed_status_codes: [500] });
    expect(response.headers.get('x-target-status')).toBe('500');
    expect((await read(created.id)).usage_count).toBe(1);
  });
});

describe('single writer', () => {
  it('answers a second scrape on a leased session with 409 BUSY (retryable, Retry-After), at 0 credits', async () => {
    const held = await startHeldPage();
    try {
      const created = await session();
      const first = api.scrape({ url: held.url, session_id: created.id });
      await held.arrived;
      const leased = await read(created.id);
      expect(leased.lease?.holder).toEqual(expect.any(String));
      const reservationsBefore = await reservationCount(service.db);
      const second = await api.scrape({ url: `${site.origin}/echo`, session_id: created.id });
      expect(second.status).toBe(409);
      expect(second.headers.get('retry-after')).toMatch(/^[1-5]$/);
      expect(second.headers.get('x-credits-charged')).toBe('0');
      const problem = (await second.json()) as Problem;
      expect(problem.code).toBe('ERR::SESSION::BUSY');
      expect(problem.retryable).toBe(true);
      expect(await reservationCount(service.db)).toBe(reservationsBefore);
      held.answer();
      const done = await first;
      expect(done.status).toBe(200);
      const after = await read(created.id);
      expect(after.usage_count).toBe(1);
      expect(after).not.toHaveProperty('lease');
      const echo = (await (await api.scrape({ url: `${site.origin}/echo`, session_id: created.id })).json()) as Echo;
      expect(echo.headers.cookie).toBe('held=1');
    } finally {
      held.answer();
      await held.close();
    }
  });

  it('fails the running scrape (410 RELEASED, 0 credits) when the session is force-released under it', async () => {
    const held = await startHeldPage();
    try {
      const created = await session();
      const first = api.scrape({ url: held.url, session_id: created.id });
      await held.arrived;
      expect((await api.release(created.id)).status).toBe(409);
      const forced = await api.release(created.id, '?force=1');
      expect(forced.status).toBe(200);
      held.answer();
      const failed = await first;
      expect(failed.status).toBe(410);
      expect(failed.headers.get('x-credits-charged')).toBe('0');
      expect(((await failed.json()) as Problem).code).toBe('ERR::SESSION::RELEASED');
      const after = await read(created.id);
      expect(after.usage_count).toBe(0);
      expect(after.context).toBeNull();
    } finally {
      held.answer();
      await held.close();
    }
  });
});
