import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_SLOTS_ID } from '../../gateway/ai/model-extraction.js';
import { DistributedPrograms } from '../support/distributed-programs.js';
import { creditTotals } from '../support/ledger.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { until } from '../support/poll.js';
import { distributedServicesAvailable } from '../support/services.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';

// Under CI=true a missing PostgreSQL or NATS throws here and fails the run instead of skipping.
const available = await distributedServicesAvailable();

type Json = Record<string, unknown>;

/**
 * Distributed mode: the model call runs in the gateway that ran the scrape, and AI_CONCURRENCY is one
 * count across every gateway (leases in PostgreSQL), workers need no model settings.
 */
describe.skipIf(!available)('ai_extract across two gateway processes, one worker, PostgreSQL and NATS', () => {
  const cluster = new DistributedPrograms({ METRICS_PORT: '0' });
  const secret = cluster.secret;
  const gateways: string[] = [];
  let db: pg.Client;
  let site: TargetSite;
  let model: ModelServer;

  const init = (body?: unknown): RequestInit => ({
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

  async function startGateway(): Promise<string> {
    const { url } = await cluster.startGateway({
      BATCH_DISPATCH_INTERVAL_MS: '100',
      AI_BASE_URL: model.baseUrl,
      AI_MODEL: 'shared-model',
      AI_CONCURRENCY: '1',
    });
    await until(async () => ((await (await fetch(`${url}/v1/workers`, init())).json()) as { workers: unknown[] }).workers.length, (n) => n === 1);
    return url;
  }

  async function spent(): Promise<number> {
    return (await creditTotals(db, 'all')).spent;
  }

  beforeAll(async () => {
    [, site, model] = await Promise.all([cluster.open(), startTargetSite(), startModelServer()]);
    db = new pg.Client({ connectionString: cluster.databaseUrl });
    await db.connect();
    await cluster.startWorker('fetch');
    gateways.push(await startGateway());
    gateways.push(await startGateway());
  });
  afterAll(async () => {
    model?.release();
    await db?.end();
    await cluster.close();
    await Promise.all([site?.close(), model?.close()]);
  });

  it('lets one model call run at a time across both gateways, and bills each scrape 5 credits', async () => {
    model.fallback = () => ({ held: true, then: { content: '{"title":"The article title"}' } });
    const before = await spent();
    const hits = site.hits('/static/article.html');
    const body = { url: `${site.origin}/static/article.html`, cache: false, ai_extract: { prompt: 'The title' } };
    const answers = gateways.map((gateway) => fetch(`${gateway}/v1/scrape`, init(body)));
    // Both pages fetched, one call at the model holding the deployment's only slot, in the shared store.
    await until(() => site.hits('/static/article.html') - hits, (n) => n === 2);
    await until(() => model.requests.length, (n) => n === 1);
    const slots = await db.query<{ n: string }>('SELECT count(*) AS n FROM concurrency_slots WHERE organization_id = $1 AND expires_at > clock_timestamp()', [MODEL_SLOTS_ID]);
    expect(Number(slots.rows[0].n)).toBe(1);
    model.fallback = () => ({ content: '{"title":"The article title"}' });
    model.release();
    const responses = await Promise.all(answers);
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(response.headers.get('x-credits-charged')).toBe('5');
      expect(((await response.json()) as Json).data).toEqual({ title: 'The article title' });
    }
    expect(model.requests).toHaveLength(2);
    expect(model.maxInFlight()).toBe(1);
    expect((await spent()) - before).toBe(10_000_000);
  });

  it('runs batch items with ai_extract on the gateways, 5 credits per success', async () => {
    model.reset();
    const before = await spent();
    const created = (await (await fetch(`${gateways[0]}/v1/batch`, init({
      cache: false,
      ai_extract: { prompt: 'The title' },
      urls: [`${site.origin}/static/article.html`, `${site.origin}/`],
    }))).json()) as Json;
    expect(created.estimated_credits).toBe(10);
    const job = await until(
      async () => (await (await fetch(`${gateways[1]}/v1/batch/${created.id as string}`, init())).json()) as Json,
      (j) => ['completed', 'failed', 'cancelled'].includes(j.status as string),
    );
    expect(job.progress).toMatchObject({ succeeded: 2, credits_charged: 10 });
    expect((await spent()) - before).toBe(10_000_000);
    expect(model.requests).toHaveLength(2);
  });
});
