import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSession, readContext } from '../../lib/store/sessions/index.js';
import { keyFor } from '../support/accounts.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startJsSite, type JsSite } from '../support/js-pages.js';
import { until } from '../support/poll.js';

/**
 * GET /v1/browser with `session_id`: the session's cookies AND localStorage (per origin, as Playwright's
 * storageState) are loaded into the context before the client sees it and saved back when it closes;
 * a scrape on the same session sees what the remote browser left.
 */
const service = embeddedForSuite({ engines: ['fetch', 'chromium'] });
let site: JsSite;
let key: string;
let wsBase: string;

beforeAll(async () => {
  site = await startJsSite();
  key = await keyFor(service.db, service.projectId, ['browser', 'sessions', 'scrape'], 'browser');
  wsBase = service.url.replace(/^http/, 'ws');
  await until(() => service.gateway.context.directory.browserEngines().has('chromium'), Boolean);
}, 60_000);

afterAll(async () => {
  await site?.close();
});

const authed = (init: RequestInit = {}): RequestInit => ({ ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers } });

async function newSession(context?: Record<string, unknown>): Promise<string> {
  const created = await fetch(`${service.url}/v1/sessions`, authed({ method: 'POST', body: JSON.stringify({ engine: 'chromium', ...(context ? { session_context: context } : {}) }) }));
  expect(created.status).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

/** The session's stored context, read from the store as the scrape path loads it. */
async function storedLocalStorage(sessionId: string): Promise<Record<string, Record<string, string>>> {
  const session = await findSession(service.db, sessionId, service.organizationId);
  return readContext(session!).local_storage;
}

function endpoint(sessionId: string): string {
  return `${wsBase}/v1/browser?${new URLSearchParams({ apikey: key, session_id: sessionId })}`;
}

describe('GET /v1/browser with session_id: localStorage', () => {
  it('saves the localStorage a page set when the connection closes, and a new connection reads it back', async () => {
    const sessionId = await newSession();
    const first = await chromium.connectOverCDP(endpoint(sessionId), { timeout: 30_000 });
    const page = await first.contexts()[0].newPage();
    await page.goto(`${site.origin}/static`);
    await page.evaluate(() => {
      localStorage.setItem('theme', 'dark');
      document.cookie = 'visitor=7; path=/; max-age=3600';
    });
    await first.close();
    const saved = await until(() => storedLocalStorage(sessionId), (storage) => Object.keys(storage).length > 0);
    expect(saved).toEqual({ [site.origin]: { theme: 'dark' } });

    const rootHits = site.hits('/');
    const again = await puppeteer.connect({ browserWSEndpoint: endpoint(sessionId), protocolTimeout: 30_000 });
    try {
      // The hidden page that loaded the storage is gone before the client looks, and never reached the site.
      expect((await again.pages()).map((open) => open.url()).filter((url) => url.startsWith('http'))).toEqual([]);
      expect(site.hits('/')).toBe(rootHits);
      const next = await again.newPage();
      await next.goto(`${site.origin}/static`);
      expect(await next.evaluate(() => [localStorage.getItem('theme'), document.cookie])).toEqual(['dark', 'visitor=7']);
      await next.evaluate(() => localStorage.setItem('theme', 'light'));
    } finally {
      await again.disconnect();
    }
    await until(() => storedLocalStorage(sessionId), (storage) => storage[site.origin]?.theme === 'light');
  });

  it('saves it when the TTL ends the connection while the client is still attached, without showing the client the page that reads it', async () => {
    const sessionId = await newSession();
    const browser = await chromium.connectOverCDP(`${endpoint(sessionId)}&ttl=4`, { timeout: 30_000 });
    const seen: string[] = [];
    browser.contexts()[0].on('page', (opened) => seen.push(opened.url()));
    const disconnected = new Promise((resolve) => browser.on('disconnected', resolve));
    const page = await browser.contexts()[0].newPage();
    await page.goto(`${site.origin}/static`);
    await page.evaluate(() => localStorage.setItem('left', 'by ttl'));
    await disconnected;
    const saved = await until(() => storedLocalStorage(sessionId), (storage) => Object.keys(storage).length > 0);
    expect(saved).toEqual({ [site.origin]: { left: 'by ttl' } });
    // Only the caller's own page was ever announced to it, never the hidden one that read the storage.
    expect(seen).toHaveLength(1);
  });

  it("starts from a session's stored localStorage of several origins (a session made with session_context)", async () => {
    const other = site.origin.replace('127.0.0.1', 'localhost');
    const sessionId = await newSession({ local_storage: { [site.origin]: { lang: 'fr', step: '2' }, [other]: { lang: 'de' } } });
    const browser = await chromium.connectOverCDP(endpoint(sessionId), { timeout: 30_000 });
    try {
      expect(browser.contexts()[0].pages()).toEqual([]);
      const page = await browser.contexts()[0].newPage();
      await page.goto(`${site.origin}/static`);
      expect(await page.evaluate(() => [localStorage.getItem('lang'), localStorage.getItem('step')])).toEqual(['fr', '2']);
      await page.evaluate(() => localStorage.setItem('lang', 'es'));
    } finally {
      await browser.close();
    }
    // The origin the connection changed is saved changed; the one it never went to is kept.
    const saved = await until(() => storedLocalStorage(sessionId), (storage) => storage[site.origin]?.lang === 'es');
    expect(saved).toEqual({ [site.origin]: { lang: 'es', step: '2' }, [other]: { lang: 'de' } });
  });

  it('hands what the remote browser left to a scrape on the same session', async () => {
    const sessionId = await newSession();
    const browser = await chromium.connectOverCDP(endpoint(sessionId), { timeout: 30_000 });
    const page = await browser.contexts()[0].newPage();
    await page.goto(`${site.origin}/static`);
    await page.evaluate(() => localStorage.setItem('cart', 'three apples'));
    await browser.close();
    await until(() => storedLocalStorage(sessionId), (storage) => Object.keys(storage).length > 0);

    const scraped = await fetch(
      `${service.url}/v1/scrape`,
      authed({
        method: 'POST',
        body: JSON.stringify({
          url: `${site.origin}/static`,
          engine: 'chromium',
          session_id: sessionId,
          cache: false,
          actions: [{ type: 'evaluate', script: "document.body.textContent = 'cart: ' + localStorage.getItem('cart')" }],
        }),
      }),
    );
    expect(scraped.status, await scraped.clone().text()).toBe(200);
    expect(await scraped.text()).toContain('cart: three apples');
  });
});
