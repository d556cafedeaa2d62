import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jsonPost } from '../support/embedded.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { startDashboardService, type DashboardService } from './harness.js';

/**
 * The dashboard as a daily tool (issue 32), in Debian's Chromium: onboarding, the playground, the API
 * reference's Try it out, the request log, batches from the browser, credits and keys. Screenshots go
 * to test-artifacts/dashboard-daily/ (git-ignored) and were looked at.
 */
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'dashboard-daily');
const WAIT = { timeout: 60_000 };
const PASSWORD = 'a long enough password';

let env: DashboardService;
let site: TargetSite;
let browser: Browser;
let page: Page;
let orgHash = '';

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
const open = async (label: string) => {
  await page.getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: label }).waitFor(WAIT);
};

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  site = await startTargetSite();
  env = await startDashboardService({}, { assets: true });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  const browserContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await browserContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.dashboard.url });
  page = await browserContext.newPage();
  await page.goto(env.setupLink);
  await page.getByLabel('Email').fill('owner@example.com');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { level: 1 }).first().waitFor(WAIT);
  orgHash = new URL(page.url()).hash.split('/').slice(0, 3).join('/');
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await env?.stop();
  await site?.close();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail') await shot(`failed-${context.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
});

describe('the dashboard as a daily tool, in Chromium', { timeout: 180_000 }, () => {
  it('has a playground whose controls are the API\'s scrape parameters, runs with the Default key and previews the answer', async () => {
    await open('Playground');
    // Generated from lib/scrape's field table: every parameter is a named control.
    for (const name of ['js_render', 'response_format', 'custom_headers', 'block_resources', 'allowed_status_codes', 'max_cost']) {
      expect(await page.locator(`[name="${name}"]`).count(), name).toBe(1);
    }
    expect(await page.locator('select[name="response_format"] option').allInnerTexts()).toEqual(['(default)', 'html', 'markdown', 'text', 'pdf', 'json']);
    await page.getByLabel('URL', { exact: true }).fill(`${site.origin}/`);
    await page.locator('select[name="response_format"]').selectOption('json');
    const curl = await page.locator('.code-block', { hasText: 'curl -X POST' }).innerText();
    expect(curl).toContain('"response_format":"json"');
    expect(curl).toContain(`${site.origin}/`);
    await page.locator('.code-block', { hasText: 'curl -X POST' }).getByRole('button', { name: 'Copy curl' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('"response_format":"json"');
    expect(await page.locator('.code-block', { hasText: 'trawler scrape' }).innerText()).toContain('--response-format json');

    await page.getByRole('button', { name: 'Run scrape' }).click();
    const summary = page.locator('[data-answer-status]');
    await summary.waitFor(WAIT);
    expect(await summary.getAttribute('data-answer-status')).toBe('200');
    expect(await summary.innerText()).toMatch(/1 credit · engine fetch · request [0-9A-Z]{26}/);
    const frame = page.frameLocator('iframe.preview-frame');
    expect(await frame.locator('h1').innerText()).toBe('Hello from the target');
    expect(await page.locator('iframe.preview-frame').getAttribute('sandbox')).toBe('');
    await shot('01-playground-rendered');
    await page.getByRole('tab', { name: 'JSON' }).click();
    expect(await page.locator('pre.preview-text').innerText()).toContain('"credits_charged"');
    await page.getByRole('tab', { name: 'Headers' }).click();
    expect(await page.locator('.tab-panel').innerText()).toContain('x-credits-charged');
    await shot('02-playground-headers');
  });

  it('shows a refused scrape as its problem, naming the field', async () => {
    await page.locator('summary', { hasText: 'Browser' }).click();
    await page.locator('input[name="wait"]').fill('999999');
    await page.getByRole('button', { name: 'Run scrape' }).click();
    const alert = page.getByRole('alert').first();
    await alert.waitFor(WAIT);
    expect(await alert.innerText()).toContain('ERR::REQUEST::INVALID_PARAMETER');
    expect(await alert.innerText()).toContain('wait');
    await page.locator('input[name="wait"]').fill('');
  });

  it('runs the API reference\'s Try it out against the gateway with real examples', async () => {
    const reference = await page.context().newPage();
    await reference.goto(`${env.dashboard.url}/api-reference/#/Scrape/scrapePost`);
    const operation = reference.locator('#operations-Scrape-scrapePost');
    await operation.waitFor(WAIT);
    if (!(await operation.locator('.try-out__btn').isVisible())) await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    const body = operation.locator('textarea.body-param__text');
    expect(await body.inputValue()).not.toContain('additionalProp1');
    expect(JSON.parse(await body.inputValue())).toEqual({ url: 'https://example.com/', response_format: 'markdown' });
    await body.fill(JSON.stringify({ url: `${site.origin}/`, response_format: 'markdown' }));
    await reference.locator('.authorize').first().click();
    await reference.locator('.modal-ux input[type="text"]').fill(env.service.secret);
    await reference.locator('.modal-ux button.modal-btn.authorize').click();
    await reference.locator('.modal-ux button.btn-done').click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table .response-col_status').first();
    await status.waitFor(WAIT);
    expect(await status.innerText()).toBe('200');
    expect(await operation.locator('.live-responses-table .response-col_description').first().innerText()).toContain('# Hello from the target');
    await reference.screenshot({ path: join(ARTIFACTS, '03-api-reference-try-it-out.png'), fullPage: false });
    await reference.close();
  });
});

export { writeFileSync, jsonPost, orgHash };
