import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardService } from './dashboard-service.js';
import { forSuite } from '../support/suite-service.js';

const WAIT = { timeout: 60_000 };

const env = forSuite(() => startDashboardService());
let base = '';

beforeAll(async () => {
  base = env.dashboard.url;
}, 180_000);

describe('the API reference on the dashboard port', () => {
  it('serves the page and Swagger UI same-origin, with the gateway document, without a session', async () => {
    const redirect = await fetch(`${base}/api-reference`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/api-reference/');

    const page = await fetch(`${base}/api-reference/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('<script src="./swagger-ui-bundle.js"></script>');
    expect(html).not.toMatch(/https?:\/\//);

    for (const [asset, type] of [
      ['swagger-ui.css', 'text/css'],
      ['swagger-ui-bundle.js', 'text/javascript'],
      ['reference.js', 'text/javascript'],
    ]) {
      const response = await fetch(`${base}/api-reference/${asset}`);
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('content-type'), asset).toContain(type);
    }

    const served = await (await fetch(`${base}/api-reference/openapi.json`)).json();
    const gateway = await (await fetch(`${env.service.url}/v1/openapi.json`)).json();
    // The gateway's document, but for its server: Try it out goes to the gateway through this origin.
    expect(served).toEqual({ ...gateway, servers: [{ url: '/api-reference/gateway', description: 'The gateway, through this dashboard (Try it out)' }] });
    expect(served.openapi).toMatch(/^3\.1\./);

    const missing = await fetch(`${base}/api-reference/nothing-here.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
  });

  it('keeps the dashboard\'s strict CSP on the reference path', async () => {
    const reference = (await fetch(`${base}/api-reference/`)).headers.get('content-security-policy');
    const console = (await fetch(`${base}/`)).headers.get('content-security-policy');
    expect(reference).toBe(console);
    expect(reference).toContain("script-src 'self';");
    expect(reference).toContain("style-src 'self';");
  });
});

describe('the API reference in Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('renders every operation of the document, under the strict CSP with no violation and no request off the dashboard origin', async () => {
    const document = await (await fetch(`${env.service.url}/v1/openapi.json`)).json();
    const operations = Object.values(document.paths as Record<string, Record<string, unknown>>).flatMap((item) =>
      Object.keys(item).filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method)),
    );
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith('data:')) elsewhere.push(request.url());
    });
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (event: { violatedDirective: string; blockedURI: string }) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
    await page.goto(`${base}/api-reference/`);
    await page.locator('.opblock').first().waitFor(WAIT);
    // Opening an operation renders its parameters and responses (more of Swagger UI's styling).
    await page.locator('.opblock-summary').first().click();
    await page.locator('.opblock-body').first().waitFor(WAIT);
    expect(await page.locator('.opblock').count()).toBe(operations.length);
    expect(await page.locator('.info .title').innerText()).toContain(String(document.info.title));
    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
    await page.close();
  });
});
