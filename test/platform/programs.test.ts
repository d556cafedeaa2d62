import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startProgram, type Program } from '../support/programs.js';
import { createTestDatabase, distributedServicesAvailable } from '../support/services.js';

const run = promisify(execFile);
const ENTRY = join(process.cwd(), 'dist/bin/trawler.js');
const available = await distributedServicesAvailable();

function cli(args: string[], env: Record<string, string>) {
  return run(process.execPath, [ENTRY, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
}

// Each test starts whole programs (PGlite compiles its WASM at start): minutes on a loaded machine.
describe('the embedded default as a program (npm start)', { timeout: 600_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawler-data-'));
  let defaultSecret = '';
  // A failed test must not leave its service holding the data directory's lock for the next one.
  const started: Program[] = [];
  const start = (env: Record<string, string>) => {
    const program = startProgram(['all'], env);
    started.push(program);
    return program;
  };
  afterEach(async () => {
    for (const program of started.splice(0)) {
      if (program.process.exitCode === null && program.process.signalCode === null) program.kill('SIGKILL');
      await program.exited;
    }
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('bootstraps on first start, prints the Default secret once, and serves it', async () => {
    const env = { DATA_DIR: dataDir, PORT: '0', EMBEDDED_ENGINES: 'fetch' };
    const first = start(env);
    const listening = await first.waitForLog((line) => line.msg === 'gateway listening');
    const secret = /svc_live_[a-z2-7]{52}/.exec(first.stderr.join(''))?.[0];
    expect(secret).toBeDefined();
    defaultSecret = secret ?? '';
    const workers = await fetch(`${String(listening.url)}/v1/workers`, { headers: { authorization: `Bearer ${secret}` } });
    expect(workers.status).toBe(200);
    expect(((await workers.json()) as { workers: unknown[] }).workers).toHaveLength(1);
    first.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = start(env);
    const again = await second.waitForLog((line) => line.msg === 'gateway listening');
    expect(second.stderr.join('')).not.toMatch(/svc_live_/);
    const still = await fetch(`${String(again.url)}/v1/workers`, { headers: { authorization: `Bearer ${secret}` } });
    expect(still.status).toBe(200);
    second.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('refuses the admin CLI on the data directory of the running service, naming its pid, and changes nothing', async () => {
    const env = { DATA_DIR: dataDir, PORT: '0', EMBEDDED_ENGINES: 'fetch' };
    const running = start(env);
    try {
      const listening = await running.waitForLog((line) => line.msg === 'gateway listening');
      const refused = await cli(['keys', 'create', '--project', 'any', '--name', 'intruder'], { DATA_DIR: dataDir }).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(refused?.code).toBe(3);
      expect(refused?.stderr).toContain(`in use by process ${running.process.pid}`);
      expect(refused?.stderr).toContain('Stop that process');
      expect(refused?.stderr).toContain('Nothing was changed');
      expect(refused?.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
      // The service still serves, with its own store intact.
      const workers = await fetch(`${String(listening.url)}/v1/workers`, { headers: { authorization: `Bearer ${defaultSecret}` } });
      expect(workers.status).toBe(200);
    } finally {
      running.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    }
    // Once the service stopped, the CLI opens the store, and it holds only the Default key.
    const keys = JSON.parse((await cli(['keys', 'list'], { DATA_DIR: dataDir })).stdout) as Array<{ name: string }>;
    expect(keys.map((key) => key.name)).toEqual(['Default']);
  });

  it('keeps serving when its dashboard port is taken (a second program on one host): the dashboard moves, with a warning', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const taken = (squatter.address() as AddressInfo).port;
    const program = start({ DATA_DIR: dataDir, PORT: '0', METRICS_PORT: '0', EMBEDDED_ENGINES: 'fetch', DASHBOARD_PORT: String(taken) });
    try {
      const moved = await program.waitForLog((line) => line.port === taken && typeof line.actual_port === 'number');
      expect(moved).toMatchObject({ level: 40, reason: 'taken by another process' });
      expect(String(moved.msg)).toContain('dashboard');
      await program.waitForLog((line) => line.msg === 'metrics listening');
      const printed = /Dashboard on (http:\/\/\S+)/.exec(program.stderr.join(''));
      expect(printed?.[1]).toBe(`http://127.0.0.1:${String(moved.actual_port)}`);
      expect((await fetch(`${printed![1]}/api/me`)).status).toBe(401);
      expect(program.process.exitCode).toBeNull();
    } finally {
      program.kill('SIGTERM');
      await program.exited;
      squatter.close();
    }
  });

  it('keeps serving when its metrics port is taken: metrics move to another port, with a warning', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const taken = (squatter.address() as AddressInfo).port;
    const program = start({ DATA_DIR: dataDir, PORT: '0', EMBEDDED_ENGINES: 'fetch', METRICS_PORT: String(taken) });
    try {
      const moved = await program.waitForLog((line) => line.port === taken && typeof line.actual_port === 'number');
      expect(moved).toMatchObject({ level: 40, reason: 'taken by another process' });
      const metrics = await program.waitForLog((line) => line.msg === 'metrics listening');
      expect(metrics.port).toBe(moved.actual_port);
      expect((await fetch(`http://127.0.0.1:${String(metrics.port)}/metrics`)).status).toBe(200);
      const listening = await program.waitForLog((line) => line.msg === 'gateway listening');
      const workers = await fetch(`${String(listening.url)}/v1/workers`, { headers: { authorization: `Bearer ${defaultSecret}` } });
      expect(workers.status).toBe(200);
      expect(program.process.exitCode).toBeNull();
    } finally {
      program.kill('SIGTERM');
      await program.exited;
      squatter.close();
    }
  });

  it('refuses to start with invalid configuration, naming the setting', async () => {
    await expect(cli(['all'], { PORT: 'not-a-port', DATA_DIR: dataDir })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('PORT'),
    });
  });
});

describe('a gateway whose dependencies are out of reach at start', { timeout: 120_000 }, () => {
  it('exits non-zero with one line naming what to check, not a stack', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const failure = await cli(['gateway'], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/none`, NATS_URL: `nats://127.0.0.1:${port}`, PORT: '0', METRICS_PORT: '0', DASHBOARD_PORT: 'off' }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(/^trawler: cannot reach PostgreSQL \(DATABASE_URL\) or NATS \(NATS_URL\) at start: /m);
    expect(failure?.stderr).not.toMatch(/^\s+at /m);
  });
});

describe.skipIf(!available)('key management CLI and migrations against PostgreSQL', { timeout: 600_000 }, () => {
  let database: { url: string; drop(): Promise<void> };
  afterAll(async () => database?.drop());

  it('applies migrations once when two processes start at the same moment', async () => {
    database = await createTestDatabase();
    const results = await Promise.all([cli(['migrate'], { DATABASE_URL: database.url }), cli(['migrate'], { DATABASE_URL: database.url })]);
    for (const result of results) expect(result.stdout).toContain('migrations applied');
  });

  it('creates, lists and revokes keys; the secret is shown only at creation', async () => {
    const env = { DATABASE_URL: database.url, PORT: '0', KEY_CACHE_SECONDS: '0', LOG_LEVEL: 'info' };
    const gateway = startProgram(['gateway'], env);
    try {
      const listening = await gateway.waitForLog((line) => line.msg === 'gateway listening');
      const projectId = String((await gateway.waitForLog((line) => line.msg === 'bootstrapped an empty store')).project_id);
      const created = JSON.parse((await cli(['keys', 'create', '--project', projectId, '--env', 'test', '--scopes', 'read', '--name', 'ci'], env)).stdout) as {
        secret: string; display_prefix: string; scopes: string[]; environment: string;
      };
      expect(created.secret).toMatch(/^svc_test_[a-z2-7]{52}$/);
      expect(created).toMatchObject({ display_prefix: created.secret.slice(0, 16), scopes: ['read'], environment: 'test' });
      const listed = (await cli(['keys', 'list'], env)).stdout;
      expect(listed).toContain(created.display_prefix);
      expect(listed).not.toContain(created.secret);
      const url = `${String(listening.url)}/v1/workers`;
      expect((await fetch(url, { headers: { authorization: `Bearer ${created.secret}` } })).status).toBe(200);
      await cli(['keys', 'revoke', created.display_prefix], env);
      const revoked = await fetch(url, { headers: { authorization: `Bearer ${created.secret}` } });
      expect(revoked.status).toBe(401);
      expect(((await revoked.json()) as { code: string }).code).toBe('ERR::AUTH::REVOKED_KEY');
      await expect(cli(['keys', 'create', '--project', projectId, '--scopes', 'everything'], env)).rejects.toMatchObject({
        stderr: expect.stringContaining('unknown scope'),
      });
    } finally {
      gateway.kill('SIGKILL');
      await gateway.exited;
    }
  });
});
