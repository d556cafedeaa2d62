import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedServicesAvailable } from '../support/services.js';
import { startGatewayCluster, type Gateway, type GatewayCluster } from '../support/gateway-cluster.js';
import { until } from '../support/poll.js';
import { startHeldSite } from '../support/held-site.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';

// Under CI=true a missing PostgreSQL or NATS throws here and fails the run instead of skipping.
const available = await distributedServicesAvailable();

type Json = Record<string, unknown>;

const TERMINAL = ['completed', 'failed', 'cancelled'];
const CREDIT = 1_000_000;

describe.skipIf(!available)('batch jobs across gateway processes sharing PostgreSQL', () => {
  let cluster: GatewayCluster;
  let site: TargetSite;

  const startGateway = (env: Record<string, string> = {}) => cluster.startGateway(env);
  const getJson = (gateway: Gateway, path: string) => cluster.getJson(gateway, path);
  const ledger = () => cluster.ledger();
  const runningItems = (jobId: string) => cluster.runningItems(jobId);
  const pidOf = (owner: string): number => Number(owner.split(':').at(-2));

  async function submit(gateway: Gateway, body: Json): Promise<string> {
    const response = await cluster.post(gateway, '/v1/batch', body);
    const json = (await response.json()) as Json;
    expect(response.status, JSON.stringify(json)).toBe(202);
    return json.id as string;
  }

  async function results(gateway: Gateway, id: string): Promise<Json[]> {
    const response = await fetch(`${gateway.url}/v1/batch/${id}/results?limit=100`, { headers: { authorization: `Bearer ${cluster.secret}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-next-cursor')).toBeNull();
    return (await response.text()).split('\n').filter(Boolean).map((line) => JSON.parse(line) as Json);
  }

  async function stop(gateway: Gateway, signal: NodeJS.Signals): Promise<void> {
    gateway.program.kill(signal);
    await gateway.program.exited;
  }

  beforeAll(async () => {
    [cluster, site] = await Promise.all([startGatewayCluster(), startTargetSite()]);
  });

  afterAll(async () => {
    await cluster?.close();
    await site?.close();
  });

  it('shares one job between two gateways: each item runs and is billed exactly once', async () => {
    // Three items in flight per gateway at most, so the job's concurrency of 10 needs both dispatchers.
    // Leases long enough that no running item expires on a loaded machine: each runs exactly once.
    const a = await startGateway({ BATCH_DISPATCH_CAPACITY: '3', BATCH_LEASE_MS: '120000' });
    const b = await startGateway({ BATCH_DISPATCH_CAPACITY: '3', BATCH_LEASE_MS: '120000' });
    const before = await ledger();
    const hitsBefore = site.hits('/slow');
    const urls = Array.from({ length: 20 }, (_, i) => `${site.origin}/slow?ms=300&i=${i}`);
    const id = await submit(a, { urls, concurrency: 10 });

    const owners = new Set<number>();
    const job = await until(
      async () => {
        for (const item of await runningItems(id)) owners.add(pidOf(item.owner));
        return getJson(b, `/v1/batch/${id}`);
      },
      (j) => TERMINAL.includes(j.status as string),
    );
    expect(job.status).toBe('completed');
    expect([...owners].sort()).toEqual([a.program.process.pid, b.program.process.pid].sort());

    const lines = await results(a, id);
    expect(lines.map((line) => [line.seq, line.status, line.attempts, line.credits_micro])).toEqual(
      urls.map((_, seq) => [seq, 'succeeded', 1, CREDIT]),
    );
    expect(site.hits('/slow') - hitsBefore).toBe(20);
    const after = await ledger();
    expect(after.spent - before.spent).toBe(20 * CREDIT);
    expect(after.reserved).toBe(0);

    await Promise.all([stop(a, 'SIGTERM'), stop(b, 'SIGTERM')]);
    expect(a.program.process.exitCode).toBe(0);
    expect(b.program.process.exitCode).toBe(0);
  });

  it('finishes the job of a SIGKILLed gateway on another one, billing each item once', async () => {
    const a = await startGateway();
    const before = await ledger();
    // The pages answer only once the gateway is dead, so its five items are surely running when it dies.
    const target = await startHeldSite();
    const urls = Array.from({ length: 10 }, (_, i) => `${target.url}?crash=${i}`);
    const id = await submit(a, { urls, concurrency: 5 });

    // Five items reach the target (the job's concurrency); the gateway dies while they run.
    await until(() => target.arrived(), (hits) => hits >= 5);
    await stop(a, 'SIGKILL');
    target.releaseAll();
    const orphaned = await runningItems(id);
    expect(orphaned.length).toBe(5);
    expect(orphaned.every((item) => pidOf(item.owner) === a.program.process.pid)).toBe(true);
    const held = await ledger();
    expect(held.reserved).toBeGreaterThan(0);

    const b = await startGateway({ BATCH_LEASE_MS: '120000' });
    const job = await until(() => getJson(b, `/v1/batch/${id}`), (j) => TERMINAL.includes(j.status as string));
    expect(job.status).toBe('completed');

    const rerun = new Set(orphaned.map((item) => item.seq));
    const lines = await results(b, id);
    expect(lines.map((line) => [line.seq, line.status, line.attempts, line.credits_micro])).toEqual(
      urls.map((_, seq) => [seq, 'succeeded', rerun.has(seq) ? 2 : 1, CREDIT]),
    );
    // The orphaned requests still reached the target once; each was run again after its lease expired.
    expect(target.arrived()).toBe(15);
    await target.close();
    const after = await ledger();
    expect(after.spent - before.spent).toBe(10 * CREDIT);
    expect(after.reserved).toBe(0);
  });
});
