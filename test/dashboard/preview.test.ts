import { createServer, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW_CSP } from '../../dashboard/routes/preview.js';
import { dashboardInChromium, signUpOwner } from './dashboard-in-chromium.js';
import { DashboardClient, type DashboardService } from './dashboard-service.js';

/**
 * The playground's rendered preview (docs/dashboard.md "Preview"), in Debian's Chromium: the scraped
 * page's own images and stylesheet load from its site; none of its scripts run (inline, handler or
 * file); the frame has an opaque origin and cannot reach the dashboard. Screenshot in
 * test-artifacts/dashboard-preview/.
 */
const chromiumSuite = dashboardInChromium({ artifacts: 'dashboard-preview', viewport: { width: 1280, height: 900 } });
const WAIT = { timeout: 60_000 };
// A 1×1 PNG.
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const PAGE = `<!doctype html><html><head><title>styled</title><link rel="stylesheet" href="/style.css">
<script src="/app.js"></script><script>fetch('/inline-script-ran')</script></head>
<body><h1>Styled page</h1><img id="logo" src="/pixel.png" width="40" height="40" alt="logo">
<img src="/missing.png" onerror="fetch('/handler-ran')" alt="">
<meta http-equiv="refresh" content="0; url=/refreshed"></body></html>`;

let env: DashboardService;
let site: Server;
let origin = '';
const hits: string[] = [];
let page: Page;

beforeAll(async () => {
  ({ env, page } = chromiumSuite.started());
  site = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/styled') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    if (req.url === '/style.css') return void res.writeHead(200, { 'content-type': 'text/css' }).end('h1 { color: rgb(200, 30, 30); }');
    if (req.url === '/pixel.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PIXEL);
    if (req.url === '/app.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end("fetch('/file-script-ran')");
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  await signUpOwner(page, env.setupLink, 'a long enough password');
}, 180_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
});

describe('the playground\'s rendered preview', { timeout: 180_000 }, () => {
  it('loads the page\'s images and styles from its site, runs none of its scripts, on an opaque origin', async () => {
    const previewAnswers: Array<Record<string, string>> = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/preview') previewAnswers.push(response.headers());
    });
    await page.locator('nav').getByRole('link', { name: 'Playground', exact: true }).click();
    await page.getByLabel('URL', { exact: true }).fill(`${origin}/styled`);
    await page.getByRole('button', { name: 'Run scrape' }).click();
    await page.locator('[data-answer-status="200"]').waitFor(WAIT);
    const frame = page.frameLocator('iframe.preview-frame');
    await frame.locator('h1', { hasText: 'Styled page' }).waitFor(WAIT);
    // The site's stylesheet and image, requested by the browser from the site itself (relative URLs, resolved by the page's base).
    await expect.poll(() => hits.filter((path) => path === '/pixel.png' || path === '/style.css').sort(), WAIT).toEqual(['/pixel.png', '/style.css']);
    await expect.poll(() => frame.locator('#logo').evaluate((img) => (img as HTMLImageElement).naturalWidth), WAIT).toBe(1);
    expect(await frame.locator('h1').evaluate((h1) => getComputedStyle(h1).color)).toBe('rgb(200, 30, 30)');
    expect(await frame.locator('h1').evaluate(() => window.origin)).toBe('null');
    expect(await page.locator('iframe.preview-frame').getAttribute('sandbox')).toBe('');
    await page.locator('iframe.preview-frame').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${chromiumSuite.folder}/00-rendered-preview.png` });

    // Scripts: neither the file, the inline one, nor the handler ran; the meta refresh did not leave.
    expect(hits.filter((path) => /ran$|refreshed/.test(path))).toEqual([]);
    // The scrape itself fetched /styled once (the fetch engine runs no scripts either); app.js was never requested by the frame.
    expect(hits.filter((path) => path === '/app.js')).toEqual([]);
    expect(previewAnswers).toHaveLength(1);
    expect(previewAnswers[0]['content-security-policy']).toBe(PREVIEW_CSP);
    expect(previewAnswers[0]['referrer-policy']).toBe('no-referrer');
  });

  it('answers only with a ticket a playground run minted for that very page, and sends it back under its own policy', async () => {
    const client = new DashboardClient(env.dashboard.url);
    const signedIn = await client.post('/signin', { email: 'owner@example.com', password: 'a long enough password' });
    expect(signedIn.status).toBe(200);
    const orgId = (signedIn.body.organizations as Array<{ id: string }>)[0].id;
    const run = await client.post(`/orgs/${orgId}/playground/scrape`, { key: 'default', params: { url: `${origin}/styled` } });
    expect(run.status).toBe(200);
    const ticket = run.body.preview_ticket as string;
    const html = run.body.body as string;
    expect(typeof ticket).toBe('string');
    const form = (fields: Record<string, string>) =>
      fetch(`${env.dashboard.url}/preview`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
    expect((await form({ ticket: 'v2.made-up', html })).status).toBe(401);
    expect((await form({ ticket, html: '<p>another page</p>' })).status).toBe(401);
    // A form sends line breaks as CRLF: the same page still matches its ticket.
    const answer = await form({ ticket, html: html.replace(/\n/g, '\r\n') });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-security-policy')).toBe(PREVIEW_CSP);
    const text = await answer.text();
    expect(text).toContain(`<base href="${origin}/styled">`);
    expect(text).not.toContain('<script');
    expect(text).not.toContain('http-equiv="refresh"');
    expect(text).toContain('<h1>Styled page</h1>');
  });
});
