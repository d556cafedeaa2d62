import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { authed, jsonPost } from '../support/embedded.js';
import type { TargetSite } from '../support/target-site.js';
import { dashboardInChromium } from './dashboard-in-chromium.js';
import type { DashboardService } from './dashboard-service.js';

/** Screenshots of the main pages, kept as test artifacts (test-artifacts/ is git-ignored). */
const chromiumSuite = dashboardInChromium({ artifacts: 'dashboard', viewport: { width: 1280, height: 860 } });
const WAIT = { timeout: 60_000 };
const PASSWORD = 'a long enough password';

let env: DashboardService;
let site: TargetSite;
let page: Page;
let testSecret = '';

const shot = (name: string) => chromiumSuite.shot(name);
const open = async (label: string) => {
  await page.getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: label }).waitFor(WAIT);
};
const alertText = async () => (await page.getByRole('alert').first().waitFor(WAIT), page.getByRole('alert').first().innerText());

beforeAll(() => {
  ({ env, site, page } = chromiumSuite.started());
});

describe('the dashboard in Chromium', { timeout: 180_000 }, () => {
  it('signs up through the one-time setup link and lands on the usage page', async () => {
    await page.goto(env.setupLink);
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor(WAIT);
    expect(await page.locator('[data-tile="Allowance"]').innerText()).toBe((100_000).toLocaleString('en-US'));
    await shot('01-usage');
  });

  it('shows ERR::AUTH::INVALID_CREDENTIALS for a wrong password, then signs in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor(WAIT);
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await alertText()).toContain('ERR::AUTH::INVALID_CREDENTIALS');
    await shot('02-sign-in-refused');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor(WAIT);
  });

  it('creates a workspace and a project, and stores a project default', async () => {
    await page.getByRole('link', { name: '+ New workspace' }).click();
    await page.getByLabel('Workspace name').fill('Acme');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor(WAIT);
    expect(await page.getByLabel('Workspace').locator('option:checked').innerText()).toBe('Acme');
    await open('Projects');
    await page.getByLabel('New project name').fill('Scraper');
    await page.getByRole('button', { name: 'Create project' }).click();
    const defaults = page.getByLabel('Scrape defaults of Scraper');
    await defaults.waitFor(WAIT);
    await defaults.fill('{"mode": "auto", "js_render": true}');
    const scraperCard = page.locator('section', { has: defaults });
    await scraperCard.getByRole('button', { name: 'Save project' }).click();
    expect(await alertText()).toContain('ERR::REQUEST::INCOMPATIBLE_FLAGS');
    await defaults.fill('{"custom_headers": {"x-dashboard-default": "from-the-project"}}');
    await scraperCard.getByRole('button', { name: 'Save project' }).click();
    await scraperCard.getByRole('status').waitFor(WAIT);
    await shot('03-projects');
  });

  it('creates a test key, shows its secret once, and a scrape with it uses the project default', async () => {
    await open('API keys');
    await page.getByLabel('Name').fill('ci');
    await page.getByLabel('Project').selectOption({ label: 'Scraper' });
    await page.getByLabel('Environment').selectOption('test');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.locator('code[data-secret]');
    await secret.waitFor(WAIT);
    testSecret = await secret.innerText();
    expect(testSecret).toMatch(/^svc_test_[a-z2-7]{52}$/);
    expect(await page.locator('table').innerText()).toContain(`${testSecret.slice(0, 16)}…`);
    await shot('04-keys-created');
    const response = await fetch(`${env.service.url}/v1/scrape`, jsonPost(testSecret, { url: `${site.origin}/echo` }));
    expect(response.status).toBe(200);
    const echoed = JSON.parse(await response.text()) as { headers: Record<string, string> };
    expect(echoed.headers['x-dashboard-default']).toBe('from-the-project');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor(WAIT);
    expect(await page.locator('body').innerText()).not.toContain(testSecret);
  });

  it('reveals the Default key ten times in a minute and refuses the eleventh', async () => {
    const reveal = page.getByRole('button', { name: 'Reveal Default key' });
    for (let i = 0; i < 10; i += 1) {
      await reveal.click();
      await page.locator('code[data-secret]').waitFor(WAIT);
      expect(await page.locator('code[data-secret]').innerText()).toMatch(/^svc_live_[a-z2-7]{52}$/);
    }
    await reveal.click();
    const refusal = await alertText();
    expect(refusal).toContain('ERR::LIMIT::RATE_LIMITED');
    expect(refusal).toContain('10 times per minute');
    await shot('05-default-reveal-refused');
  });

  it('watches a batch job’s progress reach completed and offers its results', async () => {
    const submitted = await fetch(`${env.service.url}/v1/batch`, jsonPost(testSecret, { urls: [`${site.origin}/slow?ms=1500`, `${site.origin}/`, `${site.origin}/json`] }));
    expect(submitted.status).toBe(202);
    await open('Batch jobs');
    await page.getByLabel('Project').selectOption({ label: 'Scraper' });
    await page.getByRole('link', { name: 'Open' }).first().click();
    await page.locator('[data-job-status="completed"]').waitFor(WAIT);
    expect(await page.locator('main').innerText()).toContain('3 of 3 done (100%)');
    await shot('06-batch-job');
    const [download] = await Promise.all([page.waitForEvent('download', WAIT), page.getByRole('link', { name: 'Download results' }).click()]);
    const lines = readFileSync(await download.path(), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(3);
  });

  it('lists sessions with their state and releases one', async () => {
    const created = await fetch(`${env.service.url}/v1/sessions`, jsonPost(testSecret, {}));
    const session = (await created.json()) as { id: string };
    await open('Sessions');
    await page.getByLabel('Project').selectOption({ label: 'Scraper' });
    await page.getByRole('button', { name: `Release ${session.id}` }).click();
    await page.locator('tr', { hasText: session.id }).getByText('released').waitFor(WAIT);
    await shot('07-sessions');
  });

  it('opens a request-log record with its spans, proxy and billing facts', async () => {
    await open('Request log');
    await page.getByLabel('Project').selectOption({ label: 'Scraper' });
    await page.locator('tr', { hasText: '/echo' }).waitFor(WAIT);
    await shot('08-request-log');
    await page.locator('tr', { hasText: '/echo' }).getByRole('link', { name: 'Details' }).click();
    await page.getByRole('heading', { name: 'Spans' }).waitFor(WAIT);
    const text = await page.locator('main').innerText();
    for (const fact of ['total_ms', 'Proxy', 'Billing', 'Credits charged', `${site.origin}/echo`]) expect(text).toContain(fact);
    await shot('09-request-detail');
  });

  it('revokes a key: the API refuses it', async () => {
    await open('API keys');
    // Revoking asks first (Playwright would dismiss an unanswered dialog, and nothing would be revoked).
    page.once('dialog', (dialog) => {
      expect(dialog.message()).toContain('Revoke the key "ci"');
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Revoke ci' }).click();
    await page.locator('tr', { hasText: testSecret.slice(0, 16) }).getByText('revoked').waitFor(WAIT);
    const answer = await fetch(`${env.service.url}/v1/usage`, authed(testSecret));
    expect(answer.status).toBe(401);
    expect(((await answer.json()) as { code: string }).code).toBe('ERR::AUTH::REVOKED_KEY');
    await shot('10-keys-revoked');
  });

  it('shows members and makes invitation links', async () => {
    await open('Members');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    await page.getByText('Send this one-time link').waitFor(WAIT);
    expect(await page.locator('.secret code').innerText()).toContain('/#/join/');
    // The new link is listed as pending at once, without a reload.
    await page.getByRole('button', { name: 'Withdraw' }).first().waitFor(WAIT);
    await shot('11-members');
    await open('Usage');
    await page.getByRole('link', { name: 'test credits' }).click();
    await page.locator('canvas').first().waitFor(WAIT);
    expect(Number((await page.locator('[data-tile="Spent"]').innerText()).replace(/,/g, ''))).toBeGreaterThan(0);
    await shot('12-usage-with-charts');
  });
});
