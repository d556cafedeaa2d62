import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimits } from '../../gateway/limits/create-limits.js';
import { PostgresConcurrencyLimiter } from '../../gateway/limits/postgres.js';
import { startGateway, type RunningGateway } from '../../gateway/main.js';
import { MemoryBus } from '../../lib/bus/memory-bus.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/log.js';
import { createRegistry } from '../../lib/metrics.js';
import { createApiKey, createOrganization, createProject } from '../../lib/store/accounts.js';
import type { Db } from '../../lib/store/db.js';
import { openStore } from '../../lib/store/open.js';
import { startWorkers, type RunningWorkers } from '../../worker/main.js';
import { authed, jsonPost } from '../support/embedded.js';
import { startHeldSite, type HeldSite } from '../support/held-site.js';
import { until } from '../support/poll.js';
import { createTestDatabase, distributedServicesAvailable } from '../support/services.js';

const available = await distributedServicesAvailable();
const logger = createLogger('test', 'silent');
const onError = () => undefined;

describe.skipIf(!available)('limits shared by two gateway replicas on one PostgreSQL', () => {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', TRAWLER_ALLOW_LOOPBACK_TARGETS: 'true', HEARTBEAT_INTERVAL_MS: '200' });
  const bus = new MemoryBus({ checkMessages: true });
  const stores: Db[] = [];
  const gateways: RunningGateway[] = [];
  let database: { url: string; drop(): Promise<void> };
  let workers: RunningWorkers;
  let site: HeldSite;
  // The buckets' clock stands still, so no token is refilled while a burst is under way.
  const frozen = () => 5_000_000;

  async function store(): Promise<Db> {
    const db = await openStore({ databaseUrl: database.url, dataDir: null });
    stores.push(db);
    return db;
  }

  beforeAll(async () => {
    [database, site] = await Promise.all([createTestDatabase(), startHeldSite()]);
    workers = await startWorkers({ config, bus, logger, registry: createRegistry('worker'), version: 'test' }, ['fetch']);
    for (let replica = 0; replica < 2; replica += 1) {
      const db = await store();
      const limits = createLimits(db, logger, { clock: frozen, storeTimeoutMs: 120_000 });
      gateways.push(await startGateway({ config, db, bus, logger, registry: createRegistry(`gateway${replica}`), version: 'test', limits }));
    }
    await until(() => gateways.every((g) => g.context.directory.list().length > 0), (ready) => ready, 30_000);
  });
  afterAll(async () => {
    site?.releaseAll();
    for (const gateway of gateways) await gateway.stop(1000);
    await workers?.stop(1000);
    await bus.close();
    for (const db of stores) await db.close();
    await site?.close();
    await database?.drop();
  });

  async function keyWithLimits(rate: number, concurrency: number): Promise<{ secret: string; organizationId: string }> {
    const db = stores[0];
    const org = await createOrganization(db, 'replicated', { monthlyCreditsMicro: 1_000_000_000, rateLimitPerSecond: rate, concurrencyLimit: concurrency });
    const project = await createProject(db, org.id, 'replicated');
    const { secret } = await createApiKey(db, { projectId: project.id, name: 'k', environment: 'live', scopes: ['scrape'] });
    return { secret, organizationId: org.id };
  }

  it('a burst spread over both replicas gets exactly one bucket of tokens, each remaining count once', async () => {
    const { secret } = await keyWithLimits(5, 10);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => fetch(`${gateways[i % 2].url}/v1/workers`, authed(secret))),
    );
    const accepted = answers.filter((r) => r.status === 200);
    expect(accepted).toHaveLength(10); // 5 per second with a burst of two seconds, whatever the replica
    expect(answers.filter((r) => r.status === 429)).toHaveLength(30);
    const remaining = accepted.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b);
    // Each token counted once; Remaining never reads above the per-second limit (docs/platform.md "Limits").
    expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 5, 5, 5, 5]);
    for (const refused of answers.filter((r) => r.status === 429)) {
      expect(refused.headers.get('x-ratelimit-limit')).toBe('5');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('x-ratelimit-reset')).toBe('1');
      expect(refused.headers.get('retry-after')).toBe('1');
    }
  });

  it("an organization's slots hold across both replicas: never more scrapes in flight than its limit", async () => {
    const { secret } = await keyWithLimits(1000, 3);
    const statuses: number[] = [];
    const scrapes = Array.from({ length: 10 }, (_, i) =>
      fetch(`${gateways[i % 2].url}/v1/scrape`, jsonPost(secret, { url: site.url, cache: false })).then(async (response) => {
        statuses.push(response.status);
        return { status: response.status, headers: response.headers, body: await response.text() };
      }),
    );
    // Every request has either reached the held page (holding a slot) or been refused.
    await until(() => site.arrived() + statuses.length, (settled) => settled >= 10, 60_000);
    expect(site.arrived()).toBe(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    site.releaseAll();
    const answers = await Promise.all(scrapes);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    for (const refused of answers.filter((a) => a.status === 429)) {
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'ERR::LIMIT::CONCURRENCY_EXCEEDED' });
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('concurrency-limit')).toBe('3');
      expect(refused.headers.get('concurrency-remaining')).toBe('0');
    }
    expect(site.maxInFlight()).toBe(3);
    // Released slots are free again at once on either replica.
    const again = await fetch(`${gateways[1].url}/v1/scrape`, jsonPost(secret, { url: site.url, cache: false }));
    expect(again.status).toBe(200);
    expect(again.headers.get('concurrency-remaining')).toBe('2');
  });

  it('frees the slot taken with the token when the scrape is refused before it runs (403 scope, 400 body)', async () => {
    const { organizationId, secret } = await keyWithLimits(1000, 1);
    const db = stores[0];
    const project = await db.query<{ id: string }>('SELECT id FROM projects WHERE organization_id = $1', [organizationId]);
    const { secret: batchOnly } = await createApiKey(db, { projectId: project.rows[0].id, name: 'b', environment: 'live', scopes: ['batch'] });
    const forbidden = await fetch(`${gateways[0].url}/v1/scrape`, jsonPost(batchOnly, { url: site.url, cache: false }));
    expect(forbidden.status).toBe(403);
    const malformed = await fetch(`${gateways[1].url}/v1/scrape`, { ...jsonPost(secret, {}), body: '{"url":' });
    expect(malformed.status).toBe(400);
    const leases = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM concurrency_slots WHERE organization_id = $1', [organizationId])).rows[0].n;
    await until(leases, (n) => n === 0, 30_000);
    // The organization's only slot is free: the next scrape runs.
    site.releaseAll();
    const scrape = await fetch(`${gateways[0].url}/v1/scrape`, jsonPost(secret, { url: site.url, cache: false }));
    expect(scrape.status).toBe(200);
  });

  it("a dead gateway's slot comes back when its lease expires; a live one keeps its slot by renewing", async () => {
    const { organizationId } = await keyWithLimits(1000, 1);
    const [dbA, dbB] = [await store(), await store()];
    // Replica A takes the only slot and then renews nothing, as a killed process would.
    const dead = new PostgresConcurrencyLimiter(dbA, { leaseMs: 1500, renewEveryMs: 3_600_000, onError });
    const other = new PostgresConcurrencyLimiter(dbB, { leaseMs: 60_000, renewEveryMs: 3_600_000, onError });
    try {
      await dead.acquire(organizationId, 1);
      const taken = await until(
        () => other.acquire(organizationId, 1).then(() => true, (error: { code?: string }) => error.code),
        (outcome) => outcome !== 'ERR::LIMIT::CONCURRENCY_EXCEEDED',
        30_000,
      );
      expect(taken).toBe(true);
      // Now B holds the slot for a minute: A is refused, and B's renewal moves the lease forward.
      await expect(dead.acquire(organizationId, 1)).rejects.toMatchObject({ code: 'ERR::LIMIT::CONCURRENCY_EXCEEDED' });
      const expiry = async () =>
        Number((await dbB.query<{ ms: number }>('SELECT extract(epoch FROM expires_at) * 1000 AS ms FROM concurrency_slots WHERE organization_id = $1', [organizationId])).rows[0].ms);
      const before = await expiry();
      expect(await other.renewLeases()).toBe(1);
      expect(await expiry()).toBeGreaterThan(before);
    } finally {
      await dead.close();
      await other.close();
    }
  });
});

describe('shared limits when the store does not answer', () => {
  const silent = { kind: 'postgres', query: () => new Promise(() => undefined) } as unknown as Db;
  const failing = { kind: 'postgres', query: () => Promise.reject(new Error('connection refused')) } as unknown as Db;

  it("falls back to this replica's own count instead of failing the request", async () => {
    for (const db of [silent, failing]) {
      const limits = createLimits(db, logger, { storeTimeoutMs: 50 });
      await expect(limits.rateLimiter.take('key', 1)).resolves.toEqual({ limit: 1, remaining: 1 });
      await expect(limits.rateLimiter.take('key', 1)).resolves.toEqual({ limit: 1, remaining: 0 });
      await expect(limits.rateLimiter.take('key', 1)).rejects.toMatchObject({ code: 'ERR::LIMIT::RATE_LIMITED' });
      const slot = await limits.concurrency.acquire('org', 1);
      expect(slot).toMatchObject({ limit: 1, remaining: 0 });
      await expect(limits.concurrency.acquire('org', 1)).rejects.toMatchObject({ code: 'ERR::LIMIT::CONCURRENCY_EXCEEDED' });
      slot.release();
      await limits.concurrency.close();
    }
  });
});
