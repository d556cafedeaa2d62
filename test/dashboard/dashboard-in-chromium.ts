import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { startDashboardService, type DashboardService } from './dashboard-service.js';

export interface DashboardInChromium {
  env: DashboardService;
  site: TargetSite;
  browser: Browser;
  page: Page;
}

export interface DashboardInChromiumOptions {
  /** Folder under test-artifacts/ (git-ignored) for the suite's screenshots. */
  artifacts: string;
  viewport: { width: number; height: number };
  /** Browser permissions granted to the dashboard's origin (clipboard-read, ...). */
  permissions?: string[];
}

/**
 * A suite's dashboard (with its built assets), a target site and one page in Debian's Chromium,
 * started before the suite's tests and closed after them; a failed test leaves a full-page
 * screenshot `failed-<test>.png` in `folder`. `started()` reads them in a hook or a test; `shot(name)` saves one.
 */
export function dashboardInChromium(options: DashboardInChromiumOptions): { folder: string; started(): DashboardInChromium; shot(name: string): Promise<Buffer> } {
  const folder = join(process.cwd(), 'test-artifacts', options.artifacts);
  const parts: Partial<DashboardInChromium> = {};
  const started = (): DashboardInChromium => {
    if (!parts.page) throw new Error('the dashboard starts in beforeAll; read it in a hook or a test');
    return parts as DashboardInChromium;
  };
  const shot = (name: string) => started().page.screenshot({ path: join(folder, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    mkdirSync(folder, { recursive: true });
    parts.site = await startTargetSite();
    parts.env = await startDashboardService({}, { assets: true });
    parts.browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
    const browserContext = await parts.browser.newContext({ viewport: options.viewport });
    if (options.permissions) await browserContext.grantPermissions(options.permissions, { origin: parts.env.dashboard.url });
    parts.page = await browserContext.newPage();
  }, 180_000);

  afterAll(async () => {
    await parts.browser?.close();
    await parts.env?.stop();
    await parts.site?.close();
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && parts.page) await shot(`failed-${context.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
  });

  return { folder, started, shot };
}

/** Signs the first owner up through the dashboard's one-time setup link and waits for the first page. */
export async function signUpOwner(page: Page, setupLink: string, password: string, email = 'owner@example.com'): Promise<void> {
  await page.goto(setupLink);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { level: 1 }).first().waitFor({ timeout: 90_000 });
}
