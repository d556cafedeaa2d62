import { renameSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExitTarget, startProviderGateway, startStaticExit, type ExitServer, type ExitTarget } from '../support/pool-exits.js';
import { writePoolFile } from '../support/pool-service.js';
import { until } from '../support/poll.js';
import { DistributedPrograms } from '../support/distributed-programs.js';
import type { Program } from '../support/programs.js';
import { distributedServicesAvailable } from '../support/services.js';

// Under CI=true a missing PostgreSQL or NATS throws here and fails the run instead of skipping.
const available = await distributedServicesAvailable();

describe.skipIf(!available)('managed pool in distributed mode: two gateways share sticky exits and health', () => {
  const run = new DistributedPrograms({ SHUTDOWN_GRACE_MS: '2000' });
  const secret = run.secret;
  let target: ExitTarget;
  let provider: ExitServer;
  let refusing: ExitServer;
  let japan: ExitServer;
  /** The gateway started without a watch of the pool file: only SIGHUP reloads it. */
  let sighupOnly: Program;
  let pool: { file: string; remove(): void };
  const gatewayUrls: string[] = [];

  const startGateway = (env: Record<string, string> = {}) =>
    run.startGateway({ METRICS_PORT: '0', PROXY_POOLS_FILE: pool.file, PROXY_HEALTH_REFRESH_MS: '0', ...env });

  const scrape = (gateway: number, body: Record<string, unknown>): Promise<Response> =>
    fetch(`${gatewayUrls[gateway]}/v1/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: target.url, cache: false, ...body }),
      signal: AbortSignal.timeout(60_000),
    });

  const poolExits = (): unknown[] => [
    { id: 'gw', url: `http://127.0.0.1:${provider.port}`, username_template: 'cust-{country}-sess-{session}', password: 'secret', tier: 'residential', countries: ['US'] },
    { id: 'au-refusing', url: refusing.url, tier: 'residential', country: 'AU' },
  ];

  beforeAll(async () => {
    [, target, provider, refusing, japan] = await Promise.all([
      run.open(),
      startExitTarget(),
      startProviderGateway({ US: ['127.0.0.40', '127.0.0.41', '127.0.0.42', '127.0.0.43'] }),
      startStaticExit({ address: '127.0.0.44', refuseWith: 407 }),
      startStaticExit({ address: '127.0.0.45' }),
    ]);
    pool = writePoolFile(poolExits());
    // The first gateway migrates and bootstraps the store before the second starts.
    gatewayUrls.push((await startGateway()).url);
    gatewayUrls.push((await startGateway()).url);
    await run.startWorker();
    await waitForWorker(0);
    await waitForWorker(1);
  }, 120_000);

  async function waitForWorker(gateway: number): Promise<void> {
    await until(
      () => fetch(`${gatewayUrls[gateway]}/v1/workers`, { headers: { authorization: `Bearer ${secret}` } }).then((r) => r.json() as Promise<{ workers: unknown[] }>),
      (body) => body.workers.length === 1,
    );
  }

  afterAll(async () => {
    await run.close();
    await Promise.all([target?.close(), provider?.close(), refusing?.close(), japan?.close()]);
    pool?.remove();
  });

  it('sends a sticky key through one exit whichever gateway takes the request', async () => {
    const addresses: string[] = [];
    const usernames: string[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await scrape(i % 2, { premium_proxy: true, proxy_country: 'US', sticky_key: 'order-7' });
      expect(response.status, await response.clone().text()).toBe(200);
      addresses.push(target.seen().at(-1) ?? '');
      usernames.push(provider.usernames().at(-1) ?? '');
    }
    expect(new Set(addresses).size).toBe(1);
    expect(new Set(usernames).size).toBe(1);
  });

  it("takes an exit one gateway found refusing its credentials out of the other's rotation", async () => {
    const first = await scrape(0, { premium_proxy: true, proxy_country: 'AU' });
    expect(first.status).toBe(502);
    expect(((await first.json()) as { code: string }).code).toBe('ERR::PROXY::AUTH_FAILED');
    const second = await scrape(1, { premium_proxy: true, proxy_country: 'AU' });
    expect(second.status).toBe(503);
    expect(((await second.json()) as { code: string }).code).toBe('ERR::PROXY::EXHAUSTED');
    expect(refusing.requests()).toBe(1);
  });

  it('keeps that health across a restart of a gateway', async () => {
    run.programs[1].kill('SIGKILL');
    const restarted = await startGateway({ PROXY_POOLS_WATCH_MS: '0' });
    sighupOnly = restarted.program;
    gatewayUrls[1] = restarted.url;
    await waitForWorker(1);
    const response = await scrape(1, { premium_proxy: true, proxy_country: 'AU' });
    expect(response.status).toBe(503);
    expect(refusing.requests()).toBe(1);
  });

  it('applies a changed pool file on each gateway, by its watch or on SIGHUP, and keeps it when the next one is refused', async () => {
    const japanScrape = (gateway: number) => scrape(gateway, { premium_proxy: true, proxy_country: 'JP' });
    const logged = (program: Program, msg: string) => program.logs.filter((line: { msg?: unknown }) => line.msg === msg).length;
    // Written beside it and renamed over it, as a Secret volume or `mv` replaces it: never seen half written.
    const replace = (text: string) => {
      writeFileSync(`${pool.file}.next`, text);
      renameSync(`${pool.file}.next`, pool.file);
    };
    replace(JSON.stringify({ exits: [...poolExits(), { id: 'jp', url: japan.url, tier: 'residential', country: 'JP' }] }));
    // The watching gateway applies it by itself.
    await until(() => japanScrape(0).then((r) => r.status), (status) => status === 200);
    expect(target.seen().at(-1)).toBe('127.0.0.45');
    // The other one runs without a watch: the old pools until SIGHUP.
    expect((await japanScrape(1)).status).toBe(503);
    sighupOnly.kill('SIGHUP');
    await until(() => japanScrape(1).then((r) => r.status), (status) => status === 200);
    expect(target.seen().at(-1)).toBe('127.0.0.45');

    replace(`exits:\n  - url: http://cust:secret@127.0.0.1:${provider.port}\n    tier: [residential\n`);
    const refusedMsg = 'proxy pool file refused; the pools in use stay';
    await until(() => logged(run.programs[0], refusedMsg), (n) => n === 1);
    sighupOnly.kill('SIGHUP');
    await until(() => logged(sighupOnly, refusedMsg), (n) => n === 1);
    for (const gateway of [0, 1]) expect((await japanScrape(gateway)).status).toBe(200);
    const refusal = sighupOnly.logs.find((line) => line.msg === refusedMsg);
    expect(String(refusal?.reason)).toMatch(/neither JSON nor YAML/);
    expect(JSON.stringify(refusal)).not.toContain('secret@');
    // Still alive: SIGHUP reloads, it does not stop the process.
    expect(sighupOnly.process.exitCode).toBeNull();
  });
});
