import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../worker/egress/guard.js';
import { findBrowserBinary } from '../../worker/browser/binary.js';
import { BrowserEngine } from '../../worker/browser/render-engine.js';
import { startJsSite, type JsSite } from '../support/js-pages.js';
import { context, job } from './browser-engine.js';

let site: JsSite;
let guard: EgressGuard;
let server: ChildProcess;
let profile: string;
let engine: BrowserEngine;

/** A CDP server standing in for Obscura: the headless shell with a DevTools port. */
async function startCdpServer(): Promise<string> {
  profile = mkdtempSync(join(tmpdir(), 'trawler-cdp-'));
  server = spawn(
    findBrowserBinary('obscura', process.env) ?? '/usr/lib/chromium/chromium-headless-shell',
    ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  for await (const line of createInterface({ input: server.stderr! })) {
    const match = /DevTools listening on (ws:\/\/\S+)/.exec(line);
    if (match) {
      server.stderr!.resume();
      return match[1];
    }
  }
  throw new Error('the CDP server did not start');
}

beforeAll(async () => {
  site = await startJsSite();
  guard = await EgressGuard.start({ policy: { allowLoopback: true } });
  engine = new BrowserEngine({ name: 'obscura', guard, capacity: 1, cdpEndpoint: await startCdpServer() });
  await engine.start();
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  if (server?.pid) process.kill(-server.pid, 'SIGKILL');
  await new Promise((resolve) => (server.exitCode !== null ? resolve(null) : server.once('exit', resolve)));
  rmSync(profile, { recursive: true, force: true });
  await guard?.close();
  await site?.close();
});

describe('obscura over a CDP endpoint', { timeout: 30_000 }, () => {
  it('renders through the remote browser', async () => {
    const page = await engine.fetch(job('obscura', { url: `${site.origin}/client-rendered` }), context());
    expect(page.text).toContain('Rendered by JS');
  });

  it('still sends every connection through the egress guard', async () => {
    const page = await engine.fetch(job('obscura', { url: `${site.origin}/ssrf`, block_resources: [] }), context());
    expect(page.text).toContain('still here');
    expect(site.privateConnections()).toBe(0);
  });
});
