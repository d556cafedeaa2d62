import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolFileSource } from '../../lib/proxy-pool/pool-file-watch.js';
import { until } from '../support/poll.js';
import { startExitTarget, startStaticExit, type ExitServer, type ExitTarget } from '../support/pool-exits.js';
import { poolServiceForSuite } from '../support/pool-service.js';

let target: ExitTarget;
let exits: ExitServer[];

const dcExit = () => ({ id: 'dc-de', url: exits[0].url, tier: 'datacenter', country: 'DE' });
const jpExit = () => ({ id: 'resi-jp', url: exits[1].url, tier: 'residential', country: 'JP' });

/** Replaces the file as an editor, `mv` or a Secret volume does: a new file renamed over the old. */
function replaceFile(file: string, text: string): void {
  const next = `${file}.next`;
  writeFileSync(next, text);
  renameSync(next, file);
}

const metricValue = async (name: string, labels = ''): Promise<number> => {
  const match = new RegExp(`^trawler_${name}\\{${labels}[^}]*\\} (\\S+)$`, 'm').exec(await service.registry.metrics());
  return match ? Number(match[1]) : 0;
};

beforeAll(async () => {
  target = await startExitTarget();
  exits = await Promise.all([startStaticExit({ address: '127.0.0.80' }), startStaticExit({ address: '127.0.0.81' })]);
});

afterAll(async () => {
  await Promise.all([target?.close(), ...(exits ?? []).map((e) => e.close())]);
});
// The watch sees the file's directory change; the periodic look is long, so it is the watch that acts.
const service = poolServiceForSuite(() => [dcExit()], { env: { PROXY_POOLS_WATCH_MS: '600000' } });

describe('reloading PROXY_POOLS_FILE without a restart', () => {
  it('serves new requests from a changed file', async () => {
    const before = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'JP' });
    expect(before.status).toBe(503);
    expect(((await before.json()) as { code: string }).code).toBe('ERR::PROXY::EXHAUSTED');

    replaceFile(service.config.PROXY_POOLS_FILE!, JSON.stringify({ exits: [dcExit(), jpExit()] }));
    const after = await until(
      () => service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'JP' }),
      (response) => response.status === 200,
    );
    expect(after.headers.get('x-credits-charged')).toBe('10');
    expect(target.seen().at(-1)).toBe('127.0.0.81');
    const entry = await service.logEntry(after.headers.get('x-request-id'));
    expect(entry.proxy).toMatchObject({ source: 'pool', endpoint_id: 'resi-jp', country: 'JP' });
    expect(await metricValue('proxy_pool_file_reloads_total', 'result="applied"')).toBe(1);
    expect(await metricValue('proxy_pool_file_last_reload_successful')).toBe(1);
  });

  it('keeps the pools in use when the changed file fails validation, and counts the refusal', async () => {
    // Written in place this time (not renamed): the watch sees that too.
    writeFileSync(service.config.PROXY_POOLS_FILE!, JSON.stringify({ exits: [{ ...jpExit(), tier: 'premium' }] }));
    await until(() => metricValue('proxy_pool_file_reloads_total', 'result="rejected"'), (n) => n === 1);
    expect(await metricValue('proxy_pool_file_last_reload_successful')).toBe(0);
    const response = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'JP' });
    expect(response.status).toBe(200);
    expect(target.seen().at(-1)).toBe('127.0.0.81');
    // A reload asked for (SIGHUP) of the same refused text neither applies nor counts it again.
    expect(service.gateway.reloadProxyPools()).toEqual({ result: 'unchanged' });
    expect(await metricValue('proxy_pool_file_reloads_total', 'result="rejected"')).toBe(1);
  });

  it('drops an exit the file no longer lists', async () => {
    replaceFile(service.config.PROXY_POOLS_FILE!, JSON.stringify({ exits: [jpExit()] }));
    expect(service.gateway.reloadProxyPools()?.result).toMatch(/^(applied|unchanged)$/);
    await until(() => metricValue('proxy_pool_file_reloads_total', 'result="applied"'), (n) => n === 2);
    const response = await service.scrape({ url: target.url });
    expect(response.status).toBe(200);
    // No datacenter exit left: the request goes direct (from 127.0.0.1), not through 127.0.0.80.
    expect(target.seen().at(-1)).toBe('127.0.0.1');
    expect((await service.logEntry(response.headers.get('x-request-id'))).proxy).toMatchObject({ source: 'direct', reason: 'no_pool_exit' });
  });
});

describe('PoolFileSource', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'trawler-pool-source-'));
  const file = path.join(dir, 'pools.yaml');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a changed file naming what is wrong, never quoting a credential, and keeps the exits in use', () => {
    writeFileSync(file, 'exits:\n  - url: http://u:first-pass@10.0.0.1:3128\n    tier: datacenter\n');
    const source = PoolFileSource.open(file);
    writeFileSync(file, 'exits:\n  - url: http://u:hunter2-secret@10.0.0.1:3128\n    tier: [datacenter\n');
    const broken = source.check();
    expect(broken.result).toBe('rejected');
    const message = broken.result === 'rejected' ? broken.error.message : '';
    expect(message).toMatch(/neither JSON nor YAML: \w+ at line \d+, column \d+/);
    expect(message).not.toContain('hunter2-secret');
    writeFileSync(file, 'exits:\n  - url: http://u:hunter2-secret@10.0.0.1:3128\n    tier: datacenter\n    speed: fast\n');
    const unknown = source.check();
    expect(unknown.result === 'rejected' && unknown.error.message).toMatch(/Unrecognized key.*speed/);
    expect(source.exits[0].urlFor('', '')).toBe('http://u:first-pass@10.0.0.1:3128');
    rmSync(file);
    const missing = source.check();
    expect(missing.result === 'rejected' && missing.error.message).toMatch(/cannot be read: ENOENT/);
    writeFileSync(file, 'exits:\n  - url: http://u:second-pass@10.0.0.1:3128\n    tier: datacenter\n');
    expect(source.check().result).toBe('applied');
    expect(source.exits[0].urlFor('', '')).toBe('http://u:second-pass@10.0.0.1:3128');
    expect(source.check()).toEqual({ result: 'unchanged' });
  });
});
