import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import type { EgressLease } from '../../worker/egress/guard.js';
import { CONTEXT_CLOSE_GRACE_MS, renderPage, type RenderRequest } from '../../worker/browser/render-page.js';
import { StageClock } from '../../worker/browser/stage-clock.js';
import { wireJob } from '../support/scrape-job.js';

/**
 * The render ends when its budget does, whatever the browser leaves pending. Playwright keeps
 * `context.newPage()` pending for good when the context closes under it (seen with a 264 ms budget on
 * a real browser: the render never returned and its browser never went back to the pool); these
 * stand-ins hold each browser call open until the test lets it go, so the interleaving is the test's.
 */
class HeldCall<T> {
  readonly called: Promise<void>;
  private markCalled!: () => void;
  private settle!: (value: T) => void;
  constructor() {
    this.called = new Promise<void>((resolve) => {
      this.markCalled = resolve;
    });
  }
  call(): Promise<T> {
    this.markCalled();
    return new Promise<T>((resolve) => {
      this.settle = resolve;
    });
  }
  release(value: T): void {
    this.settle(value);
  }
}

function standIn(hold: { newContext?: HeldCall<BrowserContext>; newPage?: HeldCall<never>; close?: HeldCall<void> }) {
  const closes: string[] = [];
  const context = {
    route: async () => undefined,
    routeWebSocket: async () => undefined,
    on: () => context,
    newPage: () => (hold.newPage ? hold.newPage.call() : Promise.reject(new Error('no pages here'))),
    close: () => {
      closes.push('closed');
      return hold.close ? hold.close.call() : Promise.resolve();
    },
  } as unknown as BrowserContext;
  const browser = {
    newContext: () => (hold.newContext ? hold.newContext.call() : Promise.resolve(context)),
  } as unknown as Browser;
  return { browser, context, closes };
}

function request(browser: Browser, signal: AbortSignal, onStuckBrowser = (): void => undefined): RenderRequest {
  const job = wireJob({ engine: 'obscura', params: { url: 'http://127.0.0.1:9/page', js_render: true }, budgetMs: 20_000, requestId: 'req-budget', projectId: 'project-test' });
  const lease = { server: 'http://127.0.0.1:9', username: 'u', password: 'p' } as unknown as EgressLease;
  return { browser, params: job.params, session: null, lease, geo: null, headful: false, canRasterise: false, deadline: Date.now() + 20_000, signal, clock: new StageClock(), onStuckBrowser };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a render whose budget runs out while the browser holds a call open', { timeout: 60_000 }, () => {
  it('answers UPSTREAM::TIMEOUT while newPage is still pending, and closes the context', async () => {
    const newPage = new HeldCall<never>();
    const { browser, closes } = standIn({ newPage });
    const abort = new AbortController();
    const rendering = renderPage(request(browser, abort.signal)).catch((error: unknown) => error);
    await newPage.called;
    abort.abort();
    expect(await rendering).toMatchObject({ code: 'ERR::UPSTREAM::TIMEOUT' });
    expect(closes).toEqual(['closed']);
  });

  it('answers UPSTREAM::TIMEOUT while the context is still being made, and closes that context when it arrives', async () => {
    const newContext = new HeldCall<BrowserContext>();
    const late = standIn({});
    const { browser } = standIn({ newContext });
    const abort = new AbortController();
    const rendering = renderPage(request(browser, abort.signal)).catch((error: unknown) => error);
    await newContext.called;
    abort.abort();
    expect(await rendering).toMatchObject({ code: 'ERR::UPSTREAM::TIMEOUT' });
    expect(late.closes).toEqual([]);
    newContext.release(late.context);
    await vi.waitFor(() => expect(late.closes).toEqual(['closed']));
  });

  it('answers at once when the budget ran out before the render began, making no page', async () => {
    const newPage = new HeldCall<never>();
    const { browser, closes } = standIn({ newPage });
    const abort = new AbortController();
    abort.abort();
    expect(await renderPage(request(browser, abort.signal)).catch((error: unknown) => error)).toMatchObject({ code: 'ERR::UPSTREAM::TIMEOUT' });
    expect(closes).toEqual(['closed']);
  });

  it('reports the browser stuck when its context does not close within the grace, and still answers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const newPage = new HeldCall<never>();
    const close = new HeldCall<void>();
    const { browser } = standIn({ newPage, close });
    const abort = new AbortController();
    let stuck = 0;
    const rendering = renderPage(request(browser, abort.signal, () => (stuck += 1))).catch((error: unknown) => error);
    await newPage.called;
    abort.abort();
    await close.called;
    await vi.advanceTimersByTimeAsync(CONTEXT_CLOSE_GRACE_MS - 1);
    expect(stuck).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(await rendering).toMatchObject({ code: 'ERR::UPSTREAM::TIMEOUT' });
    expect(stuck).toBe(1);
  });

  it('does not report a browser stuck when its context closes', async () => {
    const newPage = new HeldCall<never>();
    const { browser } = standIn({ newPage });
    const abort = new AbortController();
    let stuck = 0;
    const rendering = renderPage(request(browser, abort.signal, () => (stuck += 1))).catch((error: unknown) => error);
    await newPage.called;
    abort.abort();
    expect(await rendering).toMatchObject({ code: 'ERR::UPSTREAM::TIMEOUT' });
    expect(stuck).toBe(0);
  });
});
