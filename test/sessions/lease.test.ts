import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOutSession, findScrapeSession } from '../../gateway/sessions/scrape-session.js';
import { ServiceError } from '../../lib/errors/index.js';
import { newId } from '../../lib/ids.js';
import { bootstrapIfEmpty } from '../../lib/store/accounts.js';
import type { Db } from '../../lib/store/db.js';
import { openStore } from '../../lib/store/open.js';
import { acquireLease, createSession, emptyContext, findSession, recordUse, releaseSession, type SessionRecord } from '../../lib/store/sessions/index.js';
import { readContext } from '../../lib/store/sessions/record.js';
import { expireSession } from './sessions-client.js';

let db: Db;
let organizationId: string;
let projectId: string;

beforeAll(async () => {
  db = await openStore({ dataDir: null });
  const created = await bootstrapIfEmpty(db, { monthlyCreditsMicro: 1_000_000, rateLimitPerSecond: 10, concurrencyLimit: 1 });
  if (!created) throw new Error('fresh store was not empty');
  organizationId = created.organization.id;
  projectId = created.project.id;
});
afterAll(async () => {
  await db?.close();
});

async function newSession(): Promise<SessionRecord> {
  const id = newId();
  return createSession(db, {
    id,
    organizationId,
    projectId,
    engine: 'fetch',
    stickyKey: id.toLowerCase(),
    proxy: { tier: 'none', country: null, region_pool: null },
    ttlSeconds: 1800,
    maxTtlSeconds: 86_400,
    context: emptyContext(),
    fingerprint: null,
    domainScores: {},
  });
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return (error as ServiceError).code;
}

describe('taking the lease after the session was looked up', () => {
  it('gives 410 RELEASED when the session was released in between', async () => {
    const created = await newSession();
    const found = await findScrapeSession(db, created.id, organizationId);
    await releaseSession(db, created.id, organizationId, false);
    expect(await codeOf(checkOutSession(db, found, 'scrape-1', 60_000))).toBe('ERR::SESSION::RELEASED');
    expect((await findSession(db, created.id, organizationId))?.lease_holder).toBeNull();
  });

  it('gives 410 EXPIRED and takes no lease when the session expired in between', async () => {
    const created = await newSession();
    const found = await findScrapeSession(db, created.id, organizationId);
    await expireSession(db, created.id);
    expect(await codeOf(checkOutSession(db, found, 'scrape-1', 60_000))).toBe('ERR::SESSION::EXPIRED');
    expect((await findSession(db, created.id, organizationId))?.lease_holder).toBeNull();
  });

  it('still gives 409 BUSY when another scrape holds the lease of an active session', async () => {
    const created = await newSession();
    const found = await findScrapeSession(db, created.id, organizationId);
    await checkOutSession(db, found, 'scrape-1', 60_000);
    expect(await codeOf(checkOutSession(db, found, 'scrape-2', 60_000))).toBe('ERR::SESSION::BUSY');
  });

  it('keeps a use whose page storage holds NUL or a lone surrogate, storing them as U+FFFD', async () => {
    const created = await newSession();
    await acquireLease(db, created.id, organizationId, 'scrape-nul', 60_000);
    const context = { ...emptyContext(), local_storage: { 'http://127.0.0.1': { 'k\u0000ey': 'a\u0000b\ud800c' } } };
    const used = await recordUse(db, created.id, 'scrape-nul', context);
    expect(used?.usage_count).toBe(1);
    const stored = readContext((await findSession(db, created.id, organizationId))!);
    expect(stored.local_storage).toEqual({ 'http://127.0.0.1': { 'k\ufffdey': 'a\ufffdb\ufffdc' } });
  });
});
