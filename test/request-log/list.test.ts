import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject } from '../../lib/store/accounts.js';
import type { RequestLogEntry, RequestStatus } from '../../lib/store/request-log-entry.js';
import { authed } from '../support/embedded.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { HOUR_MS, ago, makeEntry, newestFirst, seed } from './log-entries.js';
import { keyFor } from '../support/accounts.js';

interface ListBody {
  data: RequestLogEntry[];
  page: { retention_hours: number; retained_since: string; has_more: boolean; next_before?: string; next_before_id?: string };
}

const service = embeddedForSuite({ engines: [] });
let ownKey: string;
let readKey: string;
let otherOrgKey: string;
let bulkKey: string;
let own: RequestLogEntry[];
let organizationWide: RequestLogEntry[];
let otherOrganization: RequestLogEntry[];
const now = Date.now();

async function list(secret: string, query = ''): Promise<{ status: number; body: ListBody & { code?: string; detail?: string } }> {
  const response = await fetch(`${service.url}/v1/requests${query}`, authed(secret));
  return { status: response.status, body: (await response.json()) as ListBody & { code?: string; detail?: string } };
}

beforeAll(async () => {
  const db = service.db;
  const second = await createProject(db, service.organizationId, 'second');
  const archived = await createProject(db, service.organizationId, 'archived');
  await db.query('UPDATE projects SET archived_at = now() WHERE id = $1', [archived.id]);
  const bulkOrg = await createOrganization(db, 'bulk', { monthlyCreditsMicro: 1, rateLimitPerSecond: 1000, concurrencyLimit: 1 });
  const bulk = await createProject(db, bulkOrg.id, 'bulk');
  const otherOrg = await createOrganization(db, 'other', { monthlyCreditsMicro: 1, rateLimitPerSecond: 1000, concurrencyLimit: 1 });
  const otherProject = await createProject(db, otherOrg.id, 'other');
  ownKey = await keyFor(service.db, service.projectId, ['scrape']);
  readKey = await keyFor(service.db, service.projectId, ['read']);
  otherOrgKey = await keyFor(service.db, otherProject.id, ['read']);
  bulkKey = await keyFor(service.db, bulk.id, []);

  const statuses: RequestStatus[] = ['success', 'failed', 'timeout', 'blocked', 'rejected', 'cancelled'];
  const tie = ago(30 * 60_000, now);
  own = await seed(db, service.organizationId, [
    ...statuses.map((status, i) => makeEntry(service.projectId, ago((i + 1) * 60_000, now), status)),
    ...Array.from({ length: 7 }, (_, i) => makeEntry(service.projectId, tie, i % 2 ? 'failed' : 'success')),
    makeEntry(service.projectId, ago(71 * HOUR_MS, now), 'success'),
  ]);
  await seed(db, service.organizationId, [makeEntry(service.projectId, ago(73 * HOUR_MS, now), 'success')]);
  const others = await seed(db, service.organizationId, [
    makeEntry(second.id, ago(90_000, now), 'failed'),
    makeEntry(second.id, tie, 'success'),
    makeEntry(archived.id, ago(2 * HOUR_MS, now), 'success'),
  ]);
  organizationWide = [...own, ...others];
  otherOrganization = await seed(db, otherOrg.id, [
    makeEntry(otherProject.id, ago(45_000, now), 'success'),
    makeEntry(otherProject.id, tie, 'failed'),
  ]);
  await seed(db, bulkOrg.id, Array.from({ length: 205 }, (_, i) => makeEntry(bulk.id, ago(i * 1000, now))));
});

const ids = (entries: RequestLogEntry[]) => entries.map((entry) => entry.id);

describe('GET /v1/requests', () => {
  it("lists the key's own project newest first with the whole entry, and a last page has no cursor", async () => {
    const before = Date.now();
    const { status, body } = await list(ownKey);
    const after = Date.now();
    expect(status).toBe(200);
    expect(ids(body.data)).toEqual(ids(newestFirst(own)));
    expect(body.data[0]).toEqual(newestFirst(own)[0]);
    expect(body.page.retention_hours).toBe(72);
    expect(body.page.has_more).toBe(false);
    expect(body.page).not.toHaveProperty('next_before');
    expect(body.page).not.toHaveProperty('next_before_id');
    const retainedSince = Date.parse(body.page.retained_since);
    expect(retainedSince).toBeGreaterThanOrEqual(before - 72 * HOUR_MS);
    expect(retainedSince).toBeLessThanOrEqual(after - 72 * HOUR_MS);
  });

  it('merges every project of the organization, archived included, with all_projects=true and read', async () => {
    const { status, body } = await list(readKey, '?all_projects=true&limit=200');
    expect(status).toBe(200);
    expect(ids(body.data)).toEqual(ids(newestFirst(organizationWide)));
    expect(organizationWide.length).toBeGreaterThan(own.length);
  });

  it('refuses all_projects=true without read, and values other than true/false', async () => {
    const forbidden = await list(ownKey, '?all_projects=true');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('ERR::AUTH::INSUFFICIENT_SCOPE');
    expect(forbidden.body.detail).toContain('read');
    for (const value of ['1', 'TRUE', 'yes']) {
      const invalid = await list(readKey, `?all_projects=${value}`);
      expect(invalid.status).toBe(400);
      expect(invalid.body.code).toBe('ERR::REQUEST::INVALID_PARAMETER');
    }
    expect((await list(ownKey, '?all_projects=false')).status).toBe(200);
  });

  it('never shows another organization, even with read and all_projects', async () => {
    const { body } = await list(otherOrgKey, '?all_projects=true');
    expect(ids(body.data)).toEqual(ids(newestFirst(otherOrganization)));
  });

  it('filters by exact status; an unknown status gives an empty page', async () => {
    const failed = await list(ownKey, '?status=failed');
    expect(ids(failed.body.data)).toEqual(ids(newestFirst(own.filter((entry) => entry.status === 'failed'))));
    expect(failed.body.data.length).toBeGreaterThan(1);
    for (const unknown of ['FAILED', 'done']) {
      const empty = await list(ownKey, `?status=${unknown}`);
      expect(empty.status).toBe(200);
      expect(empty.body.data).toEqual([]);
      expect(empty.body.page.has_more).toBe(false);
    }
  });

  it('only_errors=true lists every non-success status and ignores status; other texts do not activate it', async () => {
    const errors = newestFirst(own.filter((entry) => entry.status !== 'success'));
    expect(ids((await list(ownKey, '?only_errors=true')).body.data)).toEqual(ids(errors));
    expect(ids((await list(ownKey, '?only_errors=true&status=success')).body.data)).toEqual(ids(errors));
    for (const value of ['TRUE', '1', 'yes']) {
      expect(ids((await list(ownKey, `?only_errors=${value}`)).body.data)).toEqual(ids(newestFirst(own)));
    }
  });

  it('clamps limit silently', async () => {
    const sizes: Array<[string, number]> = [['', 50], ['?limit=abc', 50], ['?limit=0', 50], ['?limit=-4', 50],
      ['?limit=1', 1], ['?limit=2.9', 2], ['?limit=200', 200], ['?limit=201', 200], ['?limit=100000', 200]];
    for (const [query, size] of sizes) {
      const { status, body } = await list(bulkKey, query);
      expect(status, query).toBe(200);
      expect(body.data.length, query).toBe(size);
      expect(body.page.has_more, query).toBe(true);
    }
  });

  it('walks every page with the two-part cursor, without duplicates or gaps across equal timestamps', async () => {
    for (const [secret, expected, scopeQuery] of [
      [ownKey, newestFirst(own), ''],
      [readKey, newestFirst(organizationWide), '&all_projects=true'],
    ] as const) {
      const seen: string[] = [];
      let query = `?limit=3${scopeQuery}`;
      for (let pages = 0; pages < 100; pages += 1) {
        const { status, body } = await list(secret, query);
        expect(status).toBe(200);
        seen.push(...ids(body.data));
        if (!body.page.has_more) break;
        const cursor = new URLSearchParams({ before: body.page.next_before ?? '', before_id: body.page.next_before_id ?? '' });
        expect(body.page.next_before_id).toBe(body.data.at(-1)?.id);
        query = `?limit=3${scopeQuery}&${cursor}`;
      }
      expect(seen).toEqual(ids(expected));
    }
  });

  it('re-returns the boundary for before alone, and does not bound the page for before_id alone', async () => {
    const first = await list(ownKey, '?limit=4');
    const boundary = first.body.data[3];
    const beforeOnly = await list(ownKey, `?limit=4&before=${encodeURIComponent(boundary.created_at)}`);
    expect(ids(beforeOnly.body.data)).toContain(boundary.id);
    const idOnly = await list(ownKey, `?limit=4&before_id=${boundary.id}`);
    expect(ids(idOnly.body.data)).toEqual(ids(first.body.data));
  });

  it('accepts RFC 3339 offsets and rejects malformed cursors with 400', async () => {
    const at = new Date(Math.floor((now - 10 * 60_000) / 1000) * 1000);
    const local = `${new Date(at.getTime() + 2 * HOUR_MS).toISOString().slice(0, 19)}+02:00`;
    const withOffset = await list(ownKey, `?before=${encodeURIComponent(local)}&before_id=ZZZZZZZZZZZZZZZZZZZZZZZZZZ`);
    expect(withOffset.status).toBe(200);
    expect(ids(withOffset.body.data)).toEqual(ids(newestFirst(own).filter((entry) => Date.parse(entry.created_at) <= at.getTime())));
    for (const bad of ['yesterday', '2025-02-30T00:00:00Z', '2025-01-01', '2025-01-01T25:00:00Z', '1738000000']) {
      const { status, body } = await list(ownKey, `?before=${encodeURIComponent(bad)}&before_id=X`);
      expect(status, bad).toBe(400);
      expect(body.code).toBe('ERR::REQUEST::INVALID_PARAMETER');
      expect(body.detail).toContain('before');
    }
  });

  it('answers 410 BEYOND_RETENTION for a cursor older than the retention window', async () => {
    const old = encodeURIComponent(new Date(now - 73 * HOUR_MS).toISOString());
    for (const query of [`?before=${old}&before_id=01ARZ3NDEKTSV4RRFFQ69G5FAV`, `?before=${old}`]) {
      const { status, body } = await list(ownKey, query);
      expect(status).toBe(410);
      expect(body.code).toBe('ERR::REQUEST::BEYOND_RETENTION');
    }
  });

  it('rejects unknown query parameters by name but ignores query-string keys', async () => {
    const unknown = await list(ownKey, '?only_error=true');
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('ERR::REQUEST::INVALID_PARAMETER');
    expect(unknown.body.detail).toContain('only_error');
    expect((await list(ownKey, '?apikey=whatever')).status).toBe(200);
  });

  it('answers other methods with 400 and an Allow header', async () => {
    const response = await fetch(`${service.url}/v1/requests`, authed(ownKey, { method: 'DELETE' }));
    expect(response.status).toBe(400);
    expect(response.headers.get('allow')).toBe('GET');
    expect(((await response.json()) as { code: string }).code).toBe('ERR::REQUEST::INVALID');
  });
});
