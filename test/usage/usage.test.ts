import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../lib/store/accounts.js';
import { authed, jsonPost } from '../support/embedded.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';

const service = embeddedForSuite({ engines: ['fetch'] });
let site: TargetSite;
let scrapeOnly: string;

beforeAll(async () => {
  site = await startTargetSite();
  scrapeOnly = (await createApiKey(service.db, { projectId: service.projectId, name: 'no-read', environment: 'live', scopes: ['scrape'] })).secret;
  for (const path of ['/', '/status/404', '/status/500']) {
    const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: `${site.origin}${path}`, cache: false }));
    expect(response.status).toBe(200);
  }
});
afterAll(async () => {
  await site?.close();
});

const get = async (path: string, secret = service.secret) => {
  const response = await fetch(`${service.url}${path}`, authed(secret));
  return { response, body: (await response.json()) as Record<string, unknown> };
};

describe('usage (scope read)', () => {
  it('needs the read scope', async () => {
    for (const path of ['/v1/usage', '/v1/usage/summary', '/v1/usage/reconciliation']) {
      const { response, body } = await get(path, scrapeOnly);
      expect(response.status).toBe(403);
      expect(body).toMatchObject({ code: 'ERR::AUTH::INSUFFICIENT_SCOPE' });
    }
  });

  it('reports the allowance month: allowance, spent, reserved and remaining', async () => {
    const { response, body } = await get('/v1/usage');
    expect(response.status).toBe(200);
    expect(body).toMatchObject({
      organization_id: service.organizationId,
      environment: 'live',
      allowance_credits: 100_000,
      spent_micro: 2_000_000,
      spent_credits: 2,
      reserved_micro: 0,
      remaining_micro: 100_000_000_000 - 2_000_000,
    });
    const period = body.period as { start: string; end: string };
    expect(new Date(period.end).getTime()).toBeGreaterThan(new Date(period.start).getTime());
  });

  it('summarises admitted and billed scrapes by engine and project', async () => {
    const { body } = await get('/v1/usage/summary?group_by=engine,project');
    expect(body.group_by).toEqual(['engine', 'project']);
    expect(body.rows).toEqual([
      { engine: 'fetch', project_id: service.projectId, requests: 3, billed_requests: 2, credits_charged_micro: 2_000_000, credits_charged: 2 },
    ]);
    expect(body.totals).toMatchObject({ requests: 3, billed_requests: 2, credits_charged: 2 });
  });

  it('reconciles the ledger with the holds and the request log', async () => {
    const { body } = await get('/v1/usage/reconciliation');
    expect(body).toMatchObject({
      consistent: true,
      ledger: { spent_micro: 2_000_000, reserved_micro: 0 },
      holds: { settled_count: 3, charged_micro: 2_000_000, open_count: 0, open_micro: 0 },
      request_log: { records: 2, credits_micro: 2_000_000 },
    });
  });

  it('ignores query-string keys as every route but /v1/browser does', async () => {
    for (const path of ['/v1/usage?apikey=x', '/v1/usage/summary?api_key=x', '/v1/usage/reconciliation?apikey=x']) {
      expect((await get(path)).response.status, path).toBe(200);
    }
  });

  it('refuses unknown parameters and bad values with 400 naming them', async () => {
    for (const [path, name] of [
      ['/v1/usage?month=1', 'month'],
      ['/v1/usage?environment=staging', 'environment'],
      ['/v1/usage/summary?group_by=hour', 'group_by'],
      ['/v1/usage/summary?from=yesterday', 'from'],
      ['/v1/usage/summary?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'to'],
    ]) {
      const { response, body } = await get(path);
      expect(response.status, path).toBe(400);
      expect(body.code).toBe('ERR::REQUEST::INVALID_PARAMETER');
      expect(String(body.detail)).toContain(name);
    }
  });

  it('keeps test-key spending off the live ledger', async () => {
    const testKey = (await createApiKey(service.db, { projectId: service.projectId, name: 'sandbox', environment: 'test', scopes: ['scrape', 'read'] })).secret;
    const response = await fetch(`${service.url}/v1/scrape`, jsonPost(testKey, { url: `${site.origin}/`, cache: false }));
    expect(response.headers.get('x-credits-charged')).toBe('1');
    expect((await get('/v1/usage')).body.spent_micro).toBe(2_000_000);
    expect((await get('/v1/usage?environment=test')).body.spent_micro).toBe(1_000_000);
  });
});
