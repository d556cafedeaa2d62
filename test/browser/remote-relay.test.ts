import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import WebSocket, { WebSocketServer } from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findBrowserBinary } from '../../worker/browser/binary.js';
import { launchCdpBrowser, type CdpBrowser } from '../../worker/browser/remote/cdp-browser.js';
import { RemoteSession, type SessionEnd } from '../../worker/browser/remote/remote-session.js';
import { EgressGuard } from '../../worker/egress/guard.js';
import { startJsSite, type JsSite } from '../support/js-pages.js';

/**
 * The remote-browser relay on its own: a loopback WebSocket server that opens a RemoteSession per
 * connection, driven by Playwright's connectOverCDP as a caller would.
 */
let site: JsSite;
let guard: EgressGuard;
let shared: CdpBrowser;
let server: http.Server;
let url: string;
/** How the most recently opened connection ended (tests connect one at a time). */
let latestEnd: Promise<SessionEnd> = Promise.reject(new Error('no connection yet'));
latestEnd.catch(() => undefined);
let sessionOptions = { ttlMs: 60_000, idleMs: 60_000 };
const clients: Browser[] = [];

beforeAll(async () => {
  site = await startJsSite();
  guard = await EgressGuard.start({ policy: { allowLoopback: true } });
  shared = await launchCdpBrowser(findBrowserBinary('chromium', process.env)!, `remote-test-${process.pid}`);
  server = http.createServer();
  const wss = new WebSocketServer({ noServer: true });
  let n = 0;
  server.on('upgrade', (req, socket, head) => {
    n += 1;
    void RemoteSession.open(shared.endpoint, guard, { requestId: `remote-${n}`, ...sessionOptions }).then((session) => {
      wss.handleUpgrade(req, socket, head, (client) => {
        latestEnd = session.attach(client);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}, 60_000);

afterEach(async () => {
  await Promise.all(clients.splice(0).map((b) => b.close().catch(() => undefined)));
  sessionOptions = { ttlMs: 60_000, idleMs: 60_000 };
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await shared?.kill();
  await guard?.close();
  await site?.close();
});

async function connect(): Promise<Browser> {
  const browser = await chromium.connectOverCDP(url, { timeout: 20_000 });
  clients.push(browser);
  return browser;
}

/** Raw CDP over the relay, for methods Playwright never sends. */
async function rawCall(method: string, params: Record<string, unknown> = {}): Promise<{ result?: unknown; error?: { message: string } }> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  try {
    const answer = new Promise<{ result?: unknown; error?: { message: string } }>((resolve) =>
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } };
        if (message.id === 1) resolve(message);
      }),
    );
    socket.send(JSON.stringify({ id: 1, method, params }));
    return await answer;
  } finally {
    socket.close();
  }
}

describe('remote browser relay', { timeout: 60_000 }, () => {
  it('opens a page, navigates to a local target, evaluates and takes a screenshot', async () => {
    const browser = await connect();
    const context = browser.contexts()[0];
    const page = await context.newPage();
    await page.goto(`${site.origin}/client-rendered`);
    await page.waitForSelector('#title');
    expect(await page.evaluate(() => document.title)).toBe('Test page');
    const png = await page.screenshot();
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });

  it('blocks a navigation to a private address at the egress guard', async () => {
    const browser = await connect();
    const page = await browser.contexts()[0].newPage();
    await expect(page.goto(`${site.privateOrigin}/`)).rejects.toThrow();
    // A page script on an allowed origin cannot reach it either.
    const script = await browser.contexts()[0].newPage();
    await script.goto(`${site.origin}/client-rendered`);
    await expect(script.evaluate((origin) => fetch(origin).then(() => 'reached', () => 'failed'), site.privateOrigin)).resolves.toBe('failed');
    expect(site.privateConnections()).toBe(0);
  });

  it('blocks a page opened in a context the caller creates too', async () => {
    const browser = await connect();
    const context = await browser.newContext();
    const page = await context.newPage();
    await expect(page.goto(`${site.privateOrigin}/`)).rejects.toThrow();
    await (await context.newPage()).goto(`${site.origin}/client-rendered`);
    expect(site.privateConnections()).toBe(0);
  });

  it('refuses file and chrome pages and the shared browser\'s Browser.close', async () => {
    const browser = await connect();
    const page = await browser.contexts()[0].newPage();
    await expect(page.goto('file:///etc/passwd')).rejects.toThrow(/Only http, https, about and data URLs/);
    await expect(page.goto('chrome://version')).rejects.toThrow(/Only http, https, about and data URLs/);
    // A page sending itself to file: is stopped by Chromium's own rule for web content.
    const refused = page.waitForEvent('console', (m) => m.text().includes('Not allowed to load local resource'));
    await page.evaluate(() => {
      location.href = 'file:///etc/passwd';
    });
    await refused;
    expect(page.url()).toBe('about:blank');
    const session = await page.context().newCDPSession(page);
    await expect(session.send('Browser.close')).rejects.toThrow(/not allowed/);
    expect((await rawCall('Browser.close')).error?.message).toMatch(/not allowed/);
    expect((await rawCall('SystemInfo.getProcessInfo')).error?.message).toMatch(/not allowed/);
    // The shared browser is still there for the next caller.
    const next = await connect();
    await (await next.contexts()[0].newPage()).goto(`${site.origin}/client-rendered`);
  });

  it('hides and refuses other connections\' targets', async () => {
    const first = await connect();
    const page = await first.contexts()[0].newPage();
    await page.goto(`${site.origin}/client-rendered`);
    const second = await connect();
    expect(second.contexts()[0].pages()).toHaveLength(0);
    const targets = (await rawCall('Target.getTargets')).result as { targetInfos: Array<{ url: string }> };
    expect(targets.targetInfos).toEqual([]);
    const session = await first.newBrowserCDPSession();
    const { targetInfos } = (await session.send('Target.getTargets')) as { targetInfos: Array<{ targetId: string }> };
    expect(targetInfos.length).toBeGreaterThan(0);
    const foreign = await rawCall('Target.closeTarget', { targetId: targetInfos[0].targetId });
    expect(foreign.error?.message).toMatch(/another connection/);
    expect(page.isClosed()).toBe(false);
  });

  it('closes the connection with 4000 when the TTL passes, 4001 when idle', async () => {
    sessionOptions = { ttlMs: 1_000, idleMs: 60_000 };
    const ttlBrowser = await connect();
    await new Promise<void>((resolve) => ttlBrowser.once('disconnected', () => resolve()));
    expect((await latestEnd).reason).toBe('ttl');
    sessionOptions = { ttlMs: 60_000, idleMs: 1_000 };
    const idleBrowser = await connect();
    await new Promise<void>((resolve) => idleBrowser.once('disconnected', () => resolve()));
    expect((await latestEnd).reason).toBe('idle');
  });
});
