import { Writable } from 'node:stream';
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../lib/store/accounts.js';
import { purgeRequestLog } from '../../lib/store/request-log.js';
import type { RequestLogEntry } from '../../lib/store/request-log-entry.js';
import { startRequestLogPurge } from '../../gateway/request-log/purge.js';
import { authed } from '../support/embedded.js';
import { HOUR_MS, ago, makeEntry, seed } from './log-entries.js';
import { embeddedForSuite } from '../support/suite-service.js';

const service = embeddedForSuite({ engines: [], env: { REQUEST_LOG_RETENTION_HOURS: '1' } });
let readKey: string;

beforeAll(async () => {
  readKey = (await createApiKey(service.db, { projectId: service.projectId, name: 'log', environment: 'live', scopes: ['read'] })).secret;
});

async function storedIds(): Promise<string[]> {
  const result = await service.db.query<{ id: string }>('SELECT id FROM request_log ORDER BY id');
  return result.rows.map((row) => row.id);
}

async function listIds(): Promise<{ ids: string[]; retentionHours: number }> {
  const response = await fetch(`${service.url}/v1/requests?all_projects=true`, authed(readKey));
  const body = (await response.json()) as { data: RequestLogEntry[]; page: { retention_hours: number } };
  return { ids: body.data.map((entry) => entry.id), retentionHours: body.page.retention_hours };
}

describe('request log retention', () => {
  it('hides entries past the configured window before the purge, then the purge deletes exactly those', async () => {
    const [recent, nearEdge, justOut, old] = await seed(service.db, service.organizationId, [
      makeEntry(service.projectId, ago(30 * 60_000)),
      makeEntry(service.projectId, ago(59 * 60_000)),
      makeEntry(service.projectId, ago(61 * 60_000)),
      makeEntry(service.projectId, ago(5 * HOUR_MS)),
    ]);
    const listed = await listIds();
    expect(listed.retentionHours).toBe(1);
    expect(listed.ids).toEqual([recent.id, nearEdge.id]);
    expect((await fetch(`${service.url}/v1/requests/${justOut.id}`, authed(readKey))).status).toBe(404);

    expect(await purgeRequestLog(service.db, ago(HOUR_MS))).toBe(2);
    const remaining = await storedIds();
    expect(remaining).toContain(recent.id);
    expect(remaining).toContain(nearEdge.id);
    expect(remaining).not.toContain(justOut.id);
    expect(remaining).not.toContain(old.id);
    expect((await listIds()).ids).toEqual([recent.id, nearEdge.id]);
    expect(await purgeRequestLog(service.db, ago(HOUR_MS))).toBe(0);
  });

  it('the background purge deletes past-retention entries when it starts', async () => {
    const [kept, expired] = await seed(service.db, service.organizationId, [
      makeEntry(service.projectId, ago(10 * 60_000)),
      makeEntry(service.projectId, ago(2 * HOUR_MS)),
    ]);
    const lines: string[] = [];
    let purged!: () => void;
    const done = new Promise<void>((resolve) => (purged = resolve));
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString());
        if (chunk.toString().includes('request log purged')) purged();
        callback();
      },
    });
    const purge = startRequestLogPurge({ db: service.db, config: service.config, logger: pino({ level: 'info' }, sink) });
    await done;
    purge.stop();
    const remaining = await storedIds();
    expect(remaining).toContain(kept.id);
    expect(remaining).not.toContain(expired.id);
    expect(JSON.parse(lines.find((line) => line.includes('request log purged')) ?? '{}')).toMatchObject({ deleted: 1 });
  });
});
