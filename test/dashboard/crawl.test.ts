import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonPost } from '../support/embedded.js';
import { startGeneratedSite, type GeneratedSite } from '../crawl/generated-site.js';
import { dashboardInChromium, signUpOwner } from './dashboard-in-chromium.js';
import type { DashboardService } from './dashboard-service.js';

/**
 * Crawls and maps from the dashboard, and a job's item table paged through every item (issue 32), in
 * Debian's Chromium. Screenshots in test-artifacts/dashboard-crawl/ (git-ignored), looked at.
 */
const chromiumSuite = dashboardInChromium({ artifacts: 'dashboard-crawl', viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
const WAIT = { timeout: 90_000 };
const PAGES = 120;

let env: DashboardService;
let site: GeneratedSite;
let page: Page;

const shot = (name: string) => chromiumSuite.shot(name);
const open = async (label: string) => {
  await page.locator('nav').getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: label }).waitFor(WAIT);
};
const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${env.service.url}${path}`, body === undefined ? { method, headers: { authorization: `Bearer ${env.service.secret}` } } : jsonPost(env.service.secret, body));
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};
/** The item numbers (first column) of the table shown. */
const itemNumbers = async () => (await page.locator('.item-table tbody tr td:first-child').allInnerTexts()).map(Number);

beforeAll(async () => {
  ({ env, page } = chromiumSuite.started());
  const pages: Record<string, string[]> = {
    // The seed links to PAGES pages and to one the crawl excludes; /p/1 links one level deeper than allowed.
    '/': [...Array.from({ length: PAGES }, (_, i) => `/p/${i + 1}`), '/skip/this'],
    '/p/1': ['/deep/1'],
  };
  for (let i = 2; i <= PAGES; i += 1) pages[`/p/${i}`] = [];
  site = await startGeneratedSite({ pages });
  await signUpOwner(page, env.setupLink, 'a long enough password');
}, 180_000);

afterAll(async () => {
  await site?.close();
});

describe('crawls from the dashboard, in Chromium', { timeout: 240_000 }, () => {
  it('starts a crawl with its rules, shows discovered/queued/left out by reason and depth, pages through its pages, downloads them', async () => {
    await open('Crawls');
    await page.getByLabel('Start URL').fill(`${site.origin}/`);
    await page.getByLabel('Crawl name').fill('site crawl');
    await page.locator('input[name="limit"]').fill('110');
    await page.locator('input[name="max_depth"]').fill('1');
    await page.locator('textarea[name="exclude_paths"]').fill('/skip');
    await page.locator('select[name="sitemap"]').selectOption('skip');
    await page.locator('textarea[name="scrape"]').fill('{"cache": false}');
    await page.locator('summary', { hasText: 'The same crawl with curl' }).click();
    const curl = await page.locator('.code-block', { hasText: '/v1/crawl' }).innerText();
    expect(curl).toContain('"limit":110');
    expect(curl).toContain('"exclude_paths":["/skip"]');
    await shot('00-new-crawl');
    await page.getByRole('button', { name: 'Start crawl' }).click();

    await page.locator('[data-job-id]').waitFor(WAIT);
    const id = await page.locator('[data-job-id]').innerText();
    await page.locator('[data-job-status="completed"]').waitFor(WAIT);
    // The figures the API gives, as the page shows them: 110 queued, the seed's 11 other links past the
    // limit, /skip/this for its pattern, /deep/1 for its depth.
    const { body: crawl } = await api('GET', `/v1/crawl/${id}`);
    expect(crawl.crawl).toMatchObject({ discovered: 123, queued: 110, skipped: { limit: 11, pattern: 1, depth: 1 } });
    expect(await page.locator('[data-crawl-counts]').innerText()).toContain('123 discovered');
    expect(await page.locator('[data-crawl-counts]').innerText()).toContain('110 queued, 13 left out');
    const reasons = page.locator('section', { has: page.getByRole('heading', { name: 'Left out, by reason' }) });
    expect(await reasons.locator('tr', { hasText: 'limit' }).locator('td').nth(1).innerText()).toBe('11');
    expect(await reasons.locator('tr', { hasText: 'pattern' }).locator('td').nth(1).innerText()).toBe('1');
    const depths = page.locator('section', { has: page.getByRole('heading', { name: 'By depth' }) });
    expect(await depths.locator('tbody tr').nth(1).innerText()).toMatch(/^1\s+109\s+/);
    expect(await page.locator('section', { has: page.getByRole('heading', { name: 'Rules' }) }).innerText()).toContain('"max_depth": 1');

    // Pages: 100 to a page, then the rest; the seed at depth 0.
    await page.locator('[data-items-page="1"]', { hasText: 'pages 1 to 100' }).waitFor(WAIT);
    expect(await itemNumbers()).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(await page.locator('.item-table tbody tr').first().locator('td').nth(1).innerText()).toBe('0');
    // Where each page came from (the result line's depth and parent_url): the seed is the start URL, the pages it links to name it.
    expect(await page.locator('.item-table thead th').allTextContents()).toEqual(expect.arrayContaining(['Depth', 'Parent']));
    const cells = (row: number) => page.locator('.item-table tbody tr').nth(row).locator('td');
    expect(await cells(0).nth(3).innerText()).toBe('start URL');
    expect(await cells(1).nth(1).innerText()).toBe('1');
    expect(await cells(1).nth(3).innerText()).toBe(`${site.origin}/`);
    await shot('01-crawl-page');
    await page.getByRole('button', { name: 'Next →' }).click();
    await page.locator('[data-items-page="2"]').waitFor(WAIT);
    expect(await itemNumbers()).toEqual(Array.from({ length: 10 }, (_, i) => i + 101));
    expect(await page.getByRole('button', { name: 'Next →' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: '← Previous' }).click();
    await page.locator('[data-items-page="1"]', { hasText: 'pages 1 to 100' }).waitFor(WAIT);
    await page.getByLabel('Show items').selectOption('failed');
    await page.getByText('No failed page on this page.').waitFor(WAIT);
    await page.getByLabel('Show items').selectOption('succeeded');
    await page.locator('[data-items-page="1"]', { hasText: 'pages 1 to 100' }).waitFor(WAIT);

    // The results download is every page, with its content.
    const href = (await page.getByRole('link', { name: 'Download results (JSONL)' }).getAttribute('href')) ?? '';
    const download = await page.evaluate(async (from) => (await fetch(from)).text(), href);
    const lines = download.trim().split('\n').map((line) => JSON.parse(line) as { url: string; status: string; result?: unknown });
    expect(lines).toHaveLength(110);
    expect(lines.every((line) => line.status === 'succeeded' && line.result !== undefined)).toBe(true);

    // The crawl is listed on Crawls and, marked, among the batch jobs, both opening this page.
    await page.getByRole('link', { name: '← Crawls' }).click();
    const row = page.locator('tr', { hasText: 'site crawl' });
    await row.waitFor(WAIT);
    expect(await row.innerText()).toContain(`${site.origin}/`);
    expect(await row.innerText()).toContain('110/110');
    expect(await row.getByRole('link', { name: 'Open' }).getAttribute('href')).toContain(`/crawl/`);
    await shot('02-crawl-list');
    await open('Batch jobs');
    const batchRow = page.locator('tr', { hasText: 'site crawl' });
    await batchRow.waitFor(WAIT);
    expect(await batchRow.innerText()).toContain('crawl');
    await batchRow.getByRole('link', { name: 'Open' }).click();
    await page.getByRole('heading', { level: 1, name: /Crawl/ }).waitFor(WAIT);
  });

  it('cancels a running crawl from its page', async () => {
    await open('Crawls');
    await page.getByLabel('Start URL').fill(`${site.origin}/`);
    await page.getByLabel('Crawl name').fill('slow crawl');
    // Three seconds between pages to this host, two at a time: still running when Cancel is pressed,
    // and the page stays unchanged between pages (it re-renders only on change).
    await page.locator('input[name="delay_ms"]').fill('3000');
    await page.locator('input[name="concurrency"]').fill('2');
    await page.locator('select[name="sitemap"]').selectOption('skip');
    await page.getByRole('button', { name: 'Start crawl' }).click();
    await page.locator('[data-job-id]').waitFor(WAIT);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('[data-job-status="cancelled"]').waitFor(WAIT);
    const id = await page.locator('[data-job-id]').innerText();
    expect((await api('GET', `/v1/crawl/${id}`)).body.status).toBe('cancelled');
    // Listed with its cancelled pages in grey, not as a full green bar.
    await page.getByRole('link', { name: '← Crawls' }).click();
    const row = page.locator('tr', { hasText: 'slow crawl' });
    await row.waitFor(WAIT);
    expect(await row.locator('.progress-fill').getAttribute('class')).toContain('has-stopped');
  });

  it('refuses a crawl the API refuses, naming the field', async () => {
    await open('Crawls');
    await page.getByLabel('Start URL').fill(`${site.origin}/`);
    await page.locator('input[name="limit"]').fill('0');
    await page.locator('input[name="limit"]').evaluate((input) => input.removeAttribute('min'));
    await page.getByRole('button', { name: 'Start crawl' }).click();
    const alert = page.getByRole('alert').first();
    await alert.waitFor(WAIT);
    expect(await alert.innerText()).toContain('ERR::REQUEST::INVALID_PARAMETER');
    expect(await alert.innerText()).toContain('limit');
    await page.locator('input[name="limit"]').fill('');
  });

  it('maps a site: the same URLs as POST /v1/map, no credits', async () => {
    await open('Crawls');
    await page.locator('input[name="map_url"]').fill(`${site.origin}/`);
    await page.locator('textarea[name="map_exclude_paths"]').fill('/skip');
    await page.locator('select[name="map_sitemap"]').selectOption('skip');
    await page.getByRole('button', { name: 'Map site' }).click();
    await page.locator('[data-map-count]').waitFor(WAIT);
    const { body } = await api('POST', '/v1/map', { url: `${site.origin}/`, exclude_paths: ['/skip'], sitemap: 'skip' });
    expect(body.links).toHaveLength(PAGES + 1);
    expect(await page.locator('[data-map-count]').getAttribute('data-map-count')).toBe(String(PAGES + 1));
    expect((await page.locator('pre.map-links').innerText()).split('\n').sort()).toEqual([...(body.links as string[])].sort());
    await page.getByRole('button', { name: 'Copy URLs' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`${site.origin}/p/7`);
    await shot('03-map');
  });

  it('pages through a batch job\'s items past the first 100, filtered by status', async () => {
    const urls = [...Array.from({ length: 104 }, (_, i) => `${site.origin}/p/${i + 1}`), `${site.origin}/missing-page`];
    const { body: job } = await api('POST', '/v1/batch', { name: 'many items', urls, cache: false, max_attempts: 1 });
    await open('Batch jobs');
    await page.locator('tr', { hasText: 'many items' }).getByRole('link', { name: 'Open' }).click();
    await page.locator('[data-job-status="completed"]').waitFor(WAIT);
    await page.locator('[data-items-page="1"]', { hasText: 'items 1 to 100' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Next →' }).click();
    await page.locator('[data-items-page="2"]').waitFor(WAIT);
    expect(await itemNumbers()).toEqual([101, 102, 103, 104, 105]);
    expect(job.id).toBe(await page.locator('[data-job-id]').innerText());
    // The site's 404 is a success the API charges (docs/batch.md); filtering keeps to the status chosen.
    await page.getByLabel('Show items').selectOption('succeeded');
    await page.locator('[data-items-page="1"]').waitFor(WAIT);
    expect((await itemNumbers()).length).toBe(100);
    await shot('04-batch-items-paged');
  });
});
