import type { Page } from 'playwright-core';
import { ACTION_LIMITS, type ActionStep } from '../../lib/scrape/actions-schema.js';
import { ServiceError } from '../../lib/errors/index.js';
import { takeScreenshot, type Screenshot } from './screenshots.js';

export interface ActionRunContext {
  /** Milliseconds left in the job budget. */
  remainingMs(): number;
  canScreenshot: boolean;
  /** Default format and quality for screenshot steps that name none. */
  screenshotFormat: string;
  /** Where a screenshot step's clip warning goes (the envelope's warnings). */
  warnings?: string[];
}

export interface ActionRunOutcome {
  results: unknown[];
  screenshots: Screenshot[];
  skipped: Array<{ index: number; type: string; error: string }>;
}

class BudgetExhausted extends Error {}

function describe(step: ActionStep): string {
  return 'selector' in step && step.selector ? `${step.type} ${step.selector}` : step.type;
}

/**
 * Runs a step's script the way a DevTools console does (REPL mode, outside the page's CSP):
 * statements and top-level await allowed, the last expression's JSON value is the result.
 */
async function evaluateScript(page: Page, script: string, timeout: number): Promise<unknown> {
  const session = await page.context().newCDPSession(page);
  let timer: NodeJS.Timeout | undefined;
  try {
    const evaluation = session.send('Runtime.evaluate', {
      expression: script,
      replMode: true,
      awaitPromise: true,
      returnByValue: true,
      timeout,
    });
    const expiry = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`script did not finish within ${timeout} ms`)), timeout);
    });
    const answer = await Promise.race([evaluation, expiry]);
    if (answer.exceptionDetails) {
      throw new Error(`script threw: ${answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text}`);
    }
    return answer.result.value ?? null;
  } finally {
    clearTimeout(timer);
    await session.detach().catch(() => undefined);
  }
}

async function runStep(page: Page, step: ActionStep, timeout: number, ctx: ActionRunContext, index: number, out: ActionRunOutcome): Promise<void> {
  switch (step.type) {
    case 'click': {
      const click = page.locator(step.selector).first().click({ button: step.button, clickCount: step.click_count, timeout });
      if (!step.wait_for_navigation) return click;
      const navigated = page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame(), timeout });
      navigated.catch(() => undefined); // awaited below; this only keeps an early click failure from leaving it unhandled
      await click;
      await navigated;
      await page.waitForLoadState('load', { timeout });
      return;
    }
    case 'fill':
      return page.locator(step.selector).first().fill(step.value, { timeout });
    case 'type':
      return page.locator(step.selector).first().pressSequentially(step.text, { delay: step.delay, timeout });
    case 'press':
      if (step.selector !== undefined) return page.locator(step.selector).first().press(step.key, { timeout });
      return page.keyboard.press(step.key);
    case 'select':
      await page.locator(step.selector).first().selectOption(step.values, { timeout });
      return;
    case 'check':
      return page.locator(step.selector).first().setChecked(step.checked, { timeout });
    case 'hover':
      return page.locator(step.selector).first().hover({ timeout });
    case 'scroll':
      if (step.selector !== undefined) return page.locator(step.selector).first().scrollIntoViewIfNeeded({ timeout });
      if (step.to !== undefined) {
        const to = step.to;
        await page.evaluate((where) => window.scrollTo(0, where === 'top' ? 0 : document.documentElement.scrollHeight), to);
        return;
      }
      await page.evaluate(([x, y]) => window.scrollBy(x, y), [step.x ?? 0, step.y ?? 0] as const);
      return;
    case 'infinite_scroll':
      return infiniteScroll(page, step, ctx);
    case 'wait':
      if (step.ms >= ctx.remainingMs()) throw new BudgetExhausted();
      return page.waitForTimeout(step.ms);
    case 'wait_for':
      await page.locator(step.selector).first().waitFor({ state: step.state, timeout });
      return;
    case 'wait_for_load':
      return page.waitForLoadState(step.state, { timeout });
    case 'evaluate':
      out.results.push(await evaluateScript(page, step.script, timeout));
      return;
    case 'screenshot':
      if (!ctx.canScreenshot) throw new Error('this engine takes no screenshots');
      out.screenshots.push(
        await takeScreenshot(page, {
          name: step.name ?? `action-${index}`,
          fullPage: step.full_page,
          selector: step.selector ?? null,
          format: step.format ?? ctx.screenshotFormat,
          quality: step.quality,
          timeoutMs: timeout,
        }, ctx.warnings),
      );
      return;
  }
}

async function infiniteScroll(
  page: Page,
  step: Extract<ActionStep, { type: 'infinite_scroll' }>,
  ctx: ActionRunContext,
): Promise<void> {
  for (let n = 0; n < step.max_scrolls; n += 1) {
    if (step.stop_selector !== undefined && (await page.locator(step.stop_selector).count()) > 0) return;
    const height = await page.evaluate(() => {
      window.scrollTo(0, document.documentElement.scrollHeight);
      return document.documentElement.scrollHeight;
    });
    const patience = Math.min(step.delay, ctx.remainingMs());
    if (patience <= 0) throw new BudgetExhausted();
    const grew = await page
      .waitForFunction((h) => document.documentElement.scrollHeight > h, height, { timeout: patience, polling: 'raf' })
      .then(() => true)
      .catch(() => false);
    if (!grew) return;
  }
}

/**
 * Runs an `actions` workflow in order. A failing step with `on_error: skip` is recorded and passed;
 * any other failure ends the render with ERR::ENGINE::RENDER_FAILED naming the step. Running out
 * of job budget is ERR::UPSTREAM::TIMEOUT whatever the step says.
 */
export async function runActions(page: Page, steps: readonly ActionStep[], ctx: ActionRunContext): Promise<ActionRunOutcome> {
  const out: ActionRunOutcome = { results: [], screenshots: [], skipped: [] };
  for (const [index, step] of steps.entries()) {
    const remaining = ctx.remainingMs();
    if (remaining <= 0) throw timeoutAt(index, step);
    const stepTimeout = step.timeout ?? ACTION_LIMITS.defaultStepTimeoutMs;
    const timeout = Math.max(1, Math.min(stepTimeout, remaining));
    try {
      await runStep(page, step, timeout, ctx, index, out);
    } catch (error) {
      if (error instanceof BudgetExhausted || (timeout < stepTimeout && ctx.remainingMs() <= 0)) {
        throw timeoutAt(index, step);
      }
      if (!page.isClosed() && step.on_error === 'skip') {
        out.skipped.push({ index, type: step.type, error: firstLine(error) });
        continue;
      }
      if (page.isClosed()) throw error;
      throw new ServiceError('ERR::ENGINE::RENDER_FAILED', `actions[${index}] (${describe(step)}) failed: ${firstLine(error)}`, {
        diagnostics: { failed_at: `actions[${index}]`, hint: 'Check the selector, or set on_error to skip for optional steps' },
      });
    }
  }
  return out;
}

function timeoutAt(index: number, step: ActionStep): ServiceError {
  return new ServiceError('ERR::UPSTREAM::TIMEOUT', `Render budget ran out during actions[${index}] (${step.type})`, {
    diagnostics: { failed_at: `actions[${index}]` },
  });
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').slice(0, 300);
}
