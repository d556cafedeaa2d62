import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject } from '../../lib/store/accounts.js';
import type { Db } from '../../lib/store/db.js';
import { openStore } from '../../lib/store/open.js';
import { getRequestLog, listRequestLog, purgeRequestLog, type RequestLogQuery } from '../../lib/store/request-log.js';
import type { RequestLogEntry } from '../../lib/store/request-log-entry.js';
import { createTestDatabase, distributedServicesAvailable } from '../support/services.js';
import { HOUR_MS, ago, makeEntry, newestFirst, seed } from './log-entries.js';

const available = await distributedServicesAvailable();

describe.skipIf(!available)('request log on a PostgreSQL server', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: Db;
  let organizationId: string;
  let entries: RequestLogEntry[];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openStore({ databaseUrl: database.url, dataDir: null });
    organizationId = (await createOrganization(db, 'pg', { monthlyCreditsMicro: 1, rateLimitPerSecond: 1, concurrencyLimit: 1 })).id;
    const projectId = (await createProject(db, organizationId, 'pg')).id;
    const tie = ago(60_000);
    entries = await seed(db, organizationId, [
      ...Array.from({ length: 9 }, () => makeEntry(projectId, tie, 'failed')),
      ...Array.from({ length: 4 }, (_, i) => makeEntry(projectId, ago(i * 1000))),
    ]);
    await seed(db, organizationId, [makeEntry(projectId, ago(80 * HOUR_MS))]);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('walks pages in (created_at, id) order across equal timestamps', async () => {
    const query: RequestLogQuery = { organizationId, projectIds: 'all', onlyErrors: false, limit: 2, retainedSince: ago(72 * HOUR_MS) };
    const seen: string[] = [];
    let page = await listRequestLog(db, query);
    seen.push(...page.entries.map((entry) => entry.id));
    while (page.hasMore) {
      const last = page.entries[page.entries.length - 1];
      page = await listRequestLog(db, { ...query, before: { at: new Date(last.created_at), id: last.id } });
      seen.push(...page.entries.map((entry) => entry.id));
    }
    expect(seen).toEqual(newestFirst(entries).map((entry) => entry.id));
  });

  it('reads one entry back whole, scoped to its organization, and purges past retention', async () => {
    expect(await getRequestLog(db, entries[0].id, organizationId)).toEqual({ entry: entries[0] });
    expect(await getRequestLog(db, entries[0].id, 'someone-else')).toBeNull();
    expect(await purgeRequestLog(db, ago(72 * HOUR_MS))).toBe(1);
  });
});
