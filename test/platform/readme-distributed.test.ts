import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lib/ids.js';
import { byMessage, startProgram, type Program } from '../support/programs.js';
import { until } from '../support/poll.js';
import { NATS_URL, createTestDatabase, distributedServicesAvailable } from '../support/services.js';
import { SIMPLE_HTML, startTargetSite, type TargetSite } from '../support/target-site.js';

const available = await distributedServicesAvailable();

/**
 * README "Distributed mode" on one host, with the README's settings only: `trawler gateway`, then
 * `trawler worker --engine fetch`, both with the same DATABASE_URL and NATS_URL and no METRICS_PORT.
 * Added for the test: PORT=0 (any free API port), a NATS_NAMESPACE of its own, loopback targets.
 */
describe.skipIf(!available)("the README's distributed example on one machine", () => {
  let database: { url: string; drop(): Promise<void> };
  let site: TargetSite;
  const programs: Program[] = [];

  beforeAll(async () => {
    [database, site] = await Promise.all([createTestDatabase(), startTargetSite()]);
  });
  afterAll(async () => {
    for (const program of programs) program.kill('SIGTERM');
    await Promise.all(programs.map((program) => program.exited));
    await site?.close();
    await database?.drop();
  });

  it('starts the gateway and then a fetch worker with the same environment, and scrapes through them', async () => {
    const env = {
      DATABASE_URL: database.url,
      NATS_URL,
      NATS_NAMESPACE: `t${newId().toLowerCase()}`,
      PORT: '0',
      TRAWLER_ALLOW_LOOPBACK_TARGETS: 'true',
    };
    const gateway = startProgram(['gateway'], env);
    programs.push(gateway);
    const listening = await gateway.waitForLog(byMessage('gateway listening'));
    const gatewayMetrics = await gateway.waitForLog(byMessage('metrics listening'));
    const secret = /svc_live_[a-z2-7]{52}/.exec(gateway.stderr.join(''))?.[0];
    expect(secret).toBeDefined();

    const worker = startProgram(['worker', '--engine', 'fetch'], env);
    programs.push(worker);
    const workerMetrics = await worker.waitForLog(byMessage('metrics listening'));
    expect(workerMetrics.port).not.toBe(gatewayMetrics.port);
    for (const port of [gatewayMetrics.port, workerMetrics.port]) {
      const scraped = await fetch(`http://127.0.0.1:${String(port)}/metrics`);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('trawler_');
    }

    const api = String(listening.url);
    const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
    await until(
      async () => ((await (await fetch(`${api}/v1/workers`, { headers })).json()) as { workers: unknown[] }).workers.length,
      (count) => count === 1,
      60_000,
    );
    const answer = await fetch(`${api}/v1/scrape`, { method: 'POST', headers, body: JSON.stringify({ url: `${site.origin}/`, cache: false }) });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe(SIMPLE_HTML);
    expect(gateway.process.exitCode).toBeNull();
    expect(worker.process.exitCode).toBeNull();
  }, 300_000);
});
