import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log.js';
import type { QueryResult, Queryable } from '../../lib/store/db.js';
import type { RequestLogEntry } from '../../lib/store/request-log-entry.js';
import { RequestLogWriter } from '../../gateway/request-log/log-writer.js';
import { authed, jsonPost, startEmbedded, type EmbeddedService } from '../support/embedded.js';
import { creditTotals } from '../support/ledger.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';

let site: TargetSite;
beforeAll(async () => {
  site = await startTargetSite();
});
afterAll(async () => site?.close());

async function ledgerSpent(service: EmbeddedService): Promise<number> {
  return (await creditTotals(service.db)).spent;
}

/** Scrapes fired at once, some answered 200 and some refused; every id resolved as soon as all answers are in. */
async function burstThenResolve(service: EmbeddedService, count: number) {
  await service.db.query('UPDATE organizations SET concurrency_limit = 1000, rate_limit_per_second = 100000');
  const spentBefore = await ledgerSpent(service);
  const answers = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const url = i % 5 === 4 ? 'http://10.0.0.1/' : `${site.origin}/static/article.html?n=${i}`;
      const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url, cache: false }));
      await response.arrayBuffer();
      return { status: response.status, id: response.headers.get('x-request-id') ?? '', charged: Number(response.headers.get('x-credits-charged')) };
    }),
  );
  const entries = await Promise.all(
    answers.map(async ({ id }) => {
      const lookup = await fetch(`${service.url}/v1/requests/${id}`, authed(service.secret));
      return { status: lookup.status, body: (await lookup.json()) as RequestLogEntry };
    }),
  );
  return { answers, entries, spent: (await ledgerSpent(service)) - spentBefore };
}

describe.each([
  ['entries still pending in the writer', '10000'],
  ['the default flush interval', '50'],
])('batched request log: every id of a burst resolves at once (%s)', (_label, flushMs) => {
  const service = embeddedForSuite({ engines: ['fetch'], env: { REQUEST_LOG_FLUSH_MS: flushMs } });

  it('finds every X-Request-Id, with the charge the answer stated, and the ledger agrees', async () => {
    const { answers, entries, spent } = await burstThenResolve(service, 40);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(32);
    expect(answers.filter((a) => a.status === 400)).toHaveLength(8);
    expect(entries.map((e) => e.status)).toEqual(answers.map(() => 200));
    for (const [i, { body }] of entries.entries()) {
      expect(body.id).toBe(answers[i].id);
      expect(body.credits_micro).toBe(answers[i].charged * 1_000_000);
    }
    expect(spent).toBe(answers.reduce((sum, a) => sum + a.charged * 1_000_000, 0));
    // The list shows them too, pending or not.
    const list = await fetch(`${service.url}/v1/requests?limit=200`, authed(service.secret));
    const listed = new Set(((await list.json()) as { data: RequestLogEntry[] }).data.map((entry) => entry.id));
    for (const { id } of answers) expect(listed.has(id)).toBe(true);
  });
});

describe('graceful shutdown', () => {
  it('stores every pending entry before the store closes', async () => {
    const service = await startEmbedded({ engines: ['fetch'], env: { REQUEST_LOG_FLUSH_MS: '10000' } });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: `${site.origin}/static/article.html`, cache: false }));
      await response.arrayBuffer();
      ids.push(response.headers.get('x-request-id') ?? '');
    }
    const before = await service.db.query('SELECT id FROM request_log WHERE id = ANY($1::text[])', [ids]);
    expect(before.rowCount).toBe(0);
    await service.gateway.stop(1000);
    const after = await service.db.query<{ id: string }>('SELECT id FROM request_log WHERE id = ANY($1::text[])', [ids]);
    expect(after.rows.map((row) => row.id).sort()).toEqual([...ids].sort());
    await service.workers?.stop(1000);
    await service.bus.close();
    await service.db.close();
  });
});

describe('the writer against a failing store', () => {
  const entry = (id: string): RequestLogEntry => ({ id, created_at: new Date().toISOString(), project_id: 'p', status: 'success' }) as RequestLogEntry;
  /** A store whose INSERTs fail while `down`, and refuse as data (SQLSTATE 22021) any row holding `bad`. */
  function flakyStore() {
    const stored: string[] = [];
    const store = {
      down: true,
      stored,
      async query<T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> {
        if (store.down) throw Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
        if (params.some((value) => typeof value === 'string' && value.includes('"bad"'))) throw Object.assign(new Error('bad row'), { code: '22021' });
        // The rows travel as one JSON array (lib/store/request-log.ts).
        const rows = JSON.parse(String(params[0])) as Array<{ id: string }>;
        for (const row of rows) stored.push(row.id);
        return { rows: [], rowCount: rows.length };
      },
      async exec() {},
    };
    return store as typeof store & Queryable;
  }

  it('keeps entries findable while the store is down, writes them when it is back, and drops only a refused row', async () => {
    const store = flakyStore();
    const writer = new RequestLogWriter(store, createLogger('test', 'silent'), { flushMs: 5 });
    writer.add(entry('A'), 'org');
    writer.add({ ...entry('B'), project_id: 'bad' }, 'org');
    writer.add(entry('C'), 'org');
    await writer.flush();
    await writer.flush();
    expect(store.stored).toEqual([]);
    expect(writer.pending('A', 'org')?.id).toBe('A');
    expect(writer.pending('A', 'another-org')).toBeNull();
    store.down = false;
    await writer.close();
    expect(store.stored.sort()).toEqual(['A', 'C']);
    expect(writer.pending('A', 'org')).toBeNull();
  });
});

describe('the writer batches what arrives during a write', () => {
  const entry = (id: string): RequestLogEntry => ({ id, created_at: new Date().toISOString(), project_id: 'p', status: 'success' }) as RequestLogEntry;

  it('keeps entries added while a batch is written for the next batch instead of writing them one by one', async () => {
    const statements: string[][] = [];
    let releaseFirst: () => void = () => undefined;
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const store = {
      async query<T>(_sql: string, params: unknown[] = []): Promise<QueryResult<T>> {
        const ids = (JSON.parse(String(params[0])) as Array<{ id: string }>).map((row) => row.id);
        statements.push(ids);
        if (statements.length === 1) await firstHeld;
        return { rows: [], rowCount: ids.length };
      },
      async exec() {},
    } as Queryable;
    const writer = new RequestLogWriter(store, createLogger('test', 'silent'), { flushMs: 60_000 });
    writer.add(entry('A'), 'org');
    const first = writer.flush();
    writer.add(entry('B'), 'org');
    releaseFirst();
    await first;
    writer.add(entry('C'), 'org');
    await writer.flush();
    expect(statements).toEqual([['A'], ['B', 'C']]);
    expect(writer.pending('B', 'org')).toBeNull();
    await writer.close();
  });
});
