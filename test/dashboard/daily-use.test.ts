import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonPost } from '../support/embedded.js';
import type { TargetSite } from '../support/target-site.js';
import { dashboardInChromium, signUpOwner } from './dashboard-in-chromium.js';
import type { DashboardService } from './dashboard-service.js';

/**
 * The dashboard as a daily tool (issue 32), in Debian's Chromium: onboarding, the playground, the API
 * reference's Try it out, the request log, batches from the browser, credits and keys. Screenshots go
 * to test-artifacts/dashboard-daily/ (git-ignored) and were looked at.
 */
const chromiumSuite = dashboardInChromium({ artifacts: 'dashboard-daily', viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
const ARTIFACTS = chromiumSuite.folder;
const WAIT = { timeout: 60_000 };
const PASSWORD = 'a long enough password';

let env: DashboardService;
let site: TargetSite;
let page: Page;
let orgHash = '';

const shot = (name: string) => chromiumSuite.shot(name);
const open = async (label: string) => {
  await page.locator('nav').getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: label }).waitFor(WAIT);
};

beforeAll(async () => {
  ({ env, site, page } = chromiumSuite.started());
  await signUpOwner(page, env.setupLink, PASSWORD);
  orgHash = new URL(page.url()).hash.split('/').slice(0, 3).join('/');
}, 180_000);

describe('the dashboard as a daily tool, in Chromium', { timeout: 180_000 }, () => {
  it('onboards on the first page: the Default key into a ready curl, with copy buttons, and the price list', async () => {
    await page.getByRole('heading', { name: 'Get started' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Show my Default key in the command' }).click();
    const secret = await page.locator('code[data-secret]').innerText();
    expect(secret).toBe(env.service.secret);
    const curl = page.locator('.code-block', { hasText: 'curl -X POST' });
    expect(await curl.innerText()).toContain(`Bearer ${secret}`);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await curl.getByRole('button', { name: 'Copy curl' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`Bearer ${secret}`);
    expect(await page.locator('section', { hasText: 'Price list' }).innerText()).toMatch(/chromium\s+8 credits\s+32 credits/);
    await shot('00-onboarding');
  });

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

    await page.locator('select[name="response_format"]').selectOption('');
    await page.getByRole('button', { name: 'Run scrape' }).click();
    const summary = page.locator('[data-answer-status]');
    await summary.waitFor(WAIT);
    expect(await summary.getAttribute('data-answer-status')).toBe('200');
    expect(await summary.innerText()).toMatch(/1 credit · engine fetch · request [0-9A-Z]{26}/);
    const frame = page.frameLocator('iframe.preview-frame');
    await frame.locator('h1', { hasText: 'Hello from the target' }).waitFor(WAIT);
    expect(await page.locator('iframe.preview-frame').getAttribute('sandbox')).toBe('');
    await shot('01-playground-rendered');
    await page.getByRole('tab', { name: 'HTML source' }).click();
    expect(await page.locator('pre.preview-text').innerText()).toContain('<h1>Hello from the target</h1>');
    await page.locator('select[name="response_format"]').selectOption('json');
    await page.getByRole('button', { name: 'Run scrape' }).click();
    await page.getByRole('tab', { name: 'JSON' }).waitFor(WAIT);
    expect(await page.locator('pre.preview-text').innerText()).toContain('# Hello from the target');
    await page.getByRole('tab', { name: 'JSON' }).click();
    expect(await page.locator('pre.preview-text').innerText()).toContain('"credits_charged"');
    await page.getByRole('tab', { name: 'Headers' }).click();
    expect(await page.locator('.tab-panel').innerText()).toContain('x-credits-charged');
    await shot('02-playground-headers');
  });

  it('shows a refused scrape as its problem, naming the field', async () => {
    await page.locator('summary', { hasText: 'Proxy' }).click();
    await page.locator('input[name="proxy_country"]').fill('XX');
    await page.getByRole('button', { name: 'Run scrape' }).click();
    const alert = page.getByRole('alert').first();
    await alert.waitFor(WAIT);
    expect(await alert.innerText()).toContain('ERR::REQUEST::INVALID_PARAMETER');
    expect(await alert.innerText()).toContain('proxy_country');
    await shot('03-playground-refused');
    await page.locator('input[name="proxy_country"]').fill('');
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
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor(WAIT);
    expect(await status.innerText()).toBe('200');
    expect(await operation.locator('.live-responses-table tbody .response-col_description').first().innerText()).toContain('# Hello from the target');
    await reference.screenshot({ path: join(ARTIFACTS, '04-api-reference-try-it-out.png'), fullPage: false });
    await reference.close();
  });

  it('request log: error column, both statuses, search by URL, reads hidden or named, project and key named, copy as curl', async () => {
    const secret = env.service.secret;
    const refused = await fetch(`${env.service.url}/v1/scrape`, jsonPost(secret, { url: `${site.origin}/refused-here`, wait: 'soon' }));
    expect(refused.status).toBe(400);
    const job = await fetch(`${env.service.url}/v1/batch`, jsonPost(secret, { urls: [`${site.origin}/`] }));
    const jobId = ((await job.json()) as { id: string }).id;
    for (let i = 0; i < 3; i += 1) await fetch(`${env.service.url}/v1/batch/${jobId}`, { headers: { authorization: `Bearer ${secret}` } });

    await open('Request log');
    const rows = page.locator('tbody tr');
    await rows.first().waitFor(WAIT);
    const headers = await page.locator('thead th').allInnerTexts();
    expect(headers.map((t) => t.toLowerCase())).toEqual(expect.arrayContaining(['trawler', 'target', 'error']));
    const refusedRow = page.locator('tr', { hasText: '/refused-here' });
    expect(await refusedRow.innerText()).toContain('REQUEST_INVALID_PARAMETER');
    expect(await refusedRow.locator('td').nth(2).innerText()).toBe('400');
    expect(await refusedRow.locator('td').nth(3).innerText()).toBe('—');
    // The batch reads are successful calls that scraped nothing: hidden by default, named when shown.
    expect(await page.locator('tbody').innerText()).not.toContain(`/v1/batch/`);
    await page.getByLabel('Show').selectOption('all');
    await page.locator('tr', { hasText: 'GET /v1/batch/:batchID' }).first().waitFor(WAIT);
    await page.getByLabel('Show').selectOption('scrapes');
    await page.getByLabel('Search by URL').fill('refused-here');
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1, undefined, WAIT);
    await shot('05-request-log');

    await refusedRow.getByRole('link', { name: 'Details' }).click();
    await page.getByRole('heading', { level: 1, name: /Request/ }).waitFor(WAIT);
    const text = await page.locator('main').innerText();
    expect(text).toContain('Default project (');
    expect(text).toMatch(/Default · live · svc_live_/);
    await page.getByRole('button', { name: 'Copy as curl' }).click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain(`"url":"${site.origin}/refused-here"`);
    expect(copied).toContain('/v1/scrape');
    await shot('06-request-detail');
  });

  it('starts a batch from an uploaded file; the job page has its id, parameters and items with their errors; the list is not all green', async () => {
    await open('Batch jobs');
    const file = join(ARTIFACTS, 'urls.txt');
    writeFileSync(file, `${site.origin}/\n${site.origin}/json\n\n${site.origin}/reset\n`);
    await page.getByLabel('File').setInputFiles(file);
    await page.waitForFunction(() => (document.querySelector('textarea') as HTMLTextAreaElement).value.includes('/reset'), undefined, WAIT);
    await page.getByLabel('Job name').fill('three pages');
    await page.getByLabel('Job-wide parameters (JSON, optional)').fill('{"max_attempts": 1, "response_format": "markdown"}');
    await page.getByRole('button', { name: 'Start batch' }).click();
    await page.locator('[data-job-id]').waitFor(WAIT);
    const jobId = await page.locator('[data-job-id]').innerText();
    expect(jobId).toMatch(/^[0-9A-Z]{26}$/);
    await page.locator('[data-job-status]', { hasText: 'completed, 1 failed' }).waitFor(WAIT);
    const failedRow = page.locator('tr', { hasText: '/reset' });
    await failedRow.waitFor(WAIT);
    // Items count from 1; the blank line is not an item.
    expect(await failedRow.locator('td').first().innerText()).toBe('3');
    expect(await failedRow.innerText()).toContain('ERR::UPSTREAM::CONNECTION_RESET');
    expect(await page.locator('section', { hasText: 'Parameters' }).innerText()).toContain('"response_format": "markdown"');
    // The failed item's hold is still reserved for a minute after the job ended: the page says so.
    expect(await page.locator('main').innerText()).toContain('The hold of the 1 item that failed, was cancelled or skipped goes back to the allowance about a minute');
    await shot('07-batch-job');

    await page.getByRole('link', { name: '← Batch jobs' }).click();
    const row = page.locator('tr', { hasText: 'three pages' });
    await row.waitFor(WAIT);
    expect(await row.locator('.progress-fill').getAttribute('class')).toContain('has-failed');
    expect(await row.innerText()).toContain('completed, 1 failed');
    await shot('08-batch-list');
  });

  it('keys: scopes and environments explained, no browser scope, the new secret with a copy button', async () => {
    await open('API keys');
    const form = page.locator('form', { has: page.getByRole('button', { name: 'Create key' }) });
    expect(await form.innerText()).toContain('test ledger');
    expect(await form.locator('input[type="checkbox"]').evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).value))).toEqual(['scrape', 'batch', 'sessions', 'read']);
    await page.getByLabel('Name').fill('staging');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.locator('code[data-secret]').innerText();
    expect(secret).toMatch(/^svc_test_/);
    // A test key really scrapes, on its own ledger.
    const scraped = await fetch(`${env.service.url}/v1/scrape`, jsonPost(secret, { url: `${site.origin}/?from=test-key`, cache: false }));
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('x-credits-charged')).toBe('1');
    await shot('09-keys');
  });

  it('usage: credits per engine sized by credits, labelled axes, reserved explained', async () => {
    await open('Usage');
    expect(await page.locator('canvas[aria-label="Credits per engine"]').count()).toBe(1);
    expect(await page.locator('main').innerText()).toContain('Reserved: credits held, not spent');
    expect(await page.getByRole('heading', { name: 'Get started' }).count()).toBe(0);
    await shot('10-usage');
  });

  it('refuses a pasted line that is not JSON, naming its line', async () => {
    await open('Batch jobs');
    await page.locator('textarea').first().fill(`${site.origin}/\n{"url": oops}`);
    await page.getByRole('button', { name: 'Start batch' }).click();
    expect(await page.getByRole('alert').first().innerText()).toContain('Line 2: not JSON');
  });
});

