import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject } from '../../lib/store/accounts.js';
import { insertRequestLog } from '../../lib/store/request-log.js';
import type { RequestLogEntry } from '../../lib/store/request-log-entry.js';
import { uuidFromUlid } from '../../gateway/request-log/record-id.js';
import { authed } from '../support/embedded.js';
import { HOUR_MS, ago, makeEntry, seed } from './log-entries.js';
import { keyFor } from '../support/accounts.js';
import { embeddedForSuite } from '../support/suite-service.js';

const service = embeddedForSuite({ engines: [] });
let noScopeKey: string;
let readKey: string;
let otherOrgKey: string;
let ownEntry: RequestLogEntry;
let siblingEntry: RequestLogEntry;
let expiredEntry: RequestLogEntry;
let otherOrgEntry: RequestLogEntry;

async function getRecord(secret: string, id: string): Promise<{ status: number; body: RequestLogEntry & { code?: string } }> {
  const response = await fetch(`${service.url}/v1/requests/${id}`, authed(secret));
  return { status: response.status, body: (await response.json()) as RequestLogEntry & { code?: string } };
}

beforeAll(async () => {
  const db = service.db;
  const sibling = await createProject(db, service.organizationId, 'sibling');
  const otherOrg = await createOrganization(db, 'other', { monthlyCreditsMicro: 1, rateLimitPerSecond: 1000, concurrencyLimit: 1 });
  const otherProject = await createProject(db, otherOrg.id, 'other');
  noScopeKey = await keyFor(service.db, service.projectId, []);
  readKey = await keyFor(service.db, service.projectId, ['read']);
  otherOrgKey = await keyFor(service.db, otherProject.id, ['read', 'scrape', 'batch', 'sessions', 'browser']);
  [ownEntry, expiredEntry] = await seed(db, service.organizationId, [
    makeEntry(service.projectId, ago(5_000), 'blocked'),
    makeEntry(service.projectId, ago(72 * HOUR_MS + 60_000)),
  ]);
  [siblingEntry] = await seed(db, service.organizationId, [makeEntry(sibling.id, ago(5_000))]);
  [otherOrgEntry] = await seed(db, otherOrg.id, [makeEntry(otherProject.id, ago(5_000))]);
});

describe('GET /v1/requests/{id}', () => {
  it("returns the own project's record to a key without scopes, exactly as stored", async () => {
    const { status, body } = await getRecord(noScopeKey, ownEntry.id);
    expect(status).toBe(200);
    expect(body).toEqual(ownEntry);
    expect(Object.keys(body).slice(0, 5)).toEqual(['id', 'created_at', 'project_id', 'engine', 'status']);
  });

  it("needs read for another project's record and answers 404 without it", async () => {
    const hidden = await getRecord(noScopeKey, siblingEntry.id);
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe('ERR::REQUEST::NOT_FOUND');
    const shown = await getRecord(readKey, siblingEntry.id);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(siblingEntry);
  });

  it("never shows another organization's record, whatever the key's scopes", async () => {
    const crossed = await getRecord(readKey, otherOrgEntry.id);
    expect(crossed.status).toBe(404);
    expect(crossed.body.code).toBe('ERR::REQUEST::NOT_FOUND');
    expect((await getRecord(otherOrgKey, ownEntry.id)).status).toBe(404);
    expect((await getRecord(otherOrgKey, otherOrgEntry.id)).body).toEqual(otherOrgEntry);
  });

  it('answers 404 for a record past retention even before the purge, and for ids never used', async () => {
    for (const id of [expiredEntry.id, '01BX5ZZKBKACTAV9WEVGEMMVRZ', randomUUID()]) {
      const { status, body } = await getRecord(readKey, id);
      expect(status, id).toBe(404);
      expect(body.code).toBe('ERR::REQUEST::NOT_FOUND');
    }
  });

  it('finds a record by its UUID form (with or without dashes) and by a lower-case ULID', async () => {
    const uuid = uuidFromUlid(ownEntry.id);
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    for (const form of [uuid, uuid.toUpperCase(), uuid.replaceAll('-', ''), ownEntry.id.toLowerCase()]) {
      const { status, body } = await getRecord(noScopeKey, form);
      expect(status, form).toBe(200);
      expect(body.id).toBe(ownEntry.id);
    }
  });

  it('reads a UUID as the ULID of the same 128 bits', async () => {
    const known = makeEntry(service.projectId, ago(1000), 'success', '01ARZ3NDEKTSV4RRFFQ69G5FAV');
    await insertRequestLog(service.db, known, service.organizationId);
    const { status, body } = await getRecord(noScopeKey, '01563e3a-b5d3-d676-4c61-efb99302bd5b');
    expect(status).toBe(200);
    expect(body).toEqual(known);
  });

  it('answers 400 INVALID_PARAMETER for a malformed id', async () => {
    for (const id of ['abc', `${ownEntry.id}0`, ownEntry.id.slice(1), 'not-a-uuid-at-all-really-no', '01ARZ3NDEKTSV4RRFFQ69G5FA!', '8ZZZZZZZZZZZZZZZZZZZZZZZZZ']) {
      const { status, body } = await getRecord(noScopeKey, encodeURIComponent(id));
      expect(status, id).toBe(400);
      expect(body.code).toBe('ERR::REQUEST::INVALID_PARAMETER');
    }
  });

  it('keeps the first version when the same id is inserted twice', async () => {
    await insertRequestLog(service.db, { ...ownEntry, status: 'failed', credits_micro: 0 }, service.organizationId);
    expect((await getRecord(noScopeKey, ownEntry.id)).body).toEqual(ownEntry);
  });

  it('rejects unknown query parameters and other methods', async () => {
    const query = await fetch(`${service.url}/v1/requests/${ownEntry.id}?fields=all`, authed(noScopeKey));
    expect(query.status).toBe(400);
    expect(((await query.json()) as { code: string }).code).toBe('ERR::REQUEST::INVALID_PARAMETER');
    const method = await fetch(`${service.url}/v1/requests/${ownEntry.id}`, authed(noScopeKey, { method: 'DELETE' }));
    expect(method.status).toBe(400);
    expect(method.headers.get('allow')).toBe('GET');
  });

  it('requires a key', async () => {
    const response = await fetch(`${service.url}/v1/requests/${ownEntry.id}`);
    expect(response.status).toBe(401);
  });
});
