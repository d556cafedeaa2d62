import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import type { NetworkCapture, NetworkEntry } from '../../lib/scrape/network-capture-schema.js';
import { ServiceError } from '../../lib/errors/index.js';
import type { SessionState } from '../../lib/protocol/index.js';
import type { CountryGeo } from '../../lib/proxy-pool/geo.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import { detectChallenge } from '../challenge/detect.js';
import { EGRESS_ERROR_HEADER, type EgressLease } from '../egress/guard.js';
import type { RawPage } from '../engine.js';
import { runActions } from './action-runner.js';
import { installContextGuard } from './context-guard.js';
import { MainDocument } from './main-document.js';
import { captureDocument, printPdf } from './document-capture.js';
import { VIEWPORT_HEADFUL, VIEWPORT_HEADLESS } from './launch-args.js';
import { NetworkRecorder } from './network-recorder.js';
import { PageDom } from './page-dom.js';
import { blockedClasses } from './resource-blocking.js';
import { budgetTimeout, egressRefusal, isBrowserGone, navigationError, renderFailed } from './render-errors.js';
import { takeScreenshot, type Screenshot } from './screenshots.js';
import { sessionStateAfter, storageStateOf } from './session-state.js';
import { NetworkQuiet, SETTLE_MAX_MS, settle } from './settle.js';
import { declareSharedCharset } from './charset-declare.js';
import { StageClock } from './stage-clock.js';
import { settlesWithin } from '../deadline.js';

export const WAIT_FOR_DEFAULT_MS = 10_000;
/** After DOMContentLoaded, how long the `load` event may take before the render goes on without it. */
export const LOAD_GRACE_MS = 10_000;
/** What the settle wait leaves of the budget for capture, screenshots and extraction. */
const SETTLE_BUDGET_RESERVE_MS = 2_000;

export interface RenderRequest {
  browser: Browser;
  params: ScrapeParams;
  session: SessionState | null;
  lease: EgressLease;
  /** Timezone and locale of the exit's country (lib/proxy-pool/geo.ts), or the browser's own. */
  geo: CountryGeo | null;
  headful: boolean;
  /** Screenshots and PDF (chromium); obscura has no rasteriser. */
  canRasterise: boolean;
  /** Epoch ms by which the render must be done. */
  deadline: number;
  signal: AbortSignal;
  clock: StageClock;
  /** Called when the browser did not close the render's context in time: the pool replaces it. */
  onStuckBrowser: () => void;
}

export type RenderedPage = Pick<
  RawPage,
  'finalUrl' | 'status' | 'headers' | 'mediaType' | 'text' | 'body' | 'pdf' | 'screenshots' | 'network' | 'actionResults' | 'warnings' | 'blocked' | 'session'
> & { upstreamMs: number | null };

/** Thrown when the browser itself failed, so the pool replaces it. */
export class BrowserBroken extends Error {
  constructor(readonly serviceError: ServiceError) {
    super(serviceError.message);
  }
}

/**
 * One render in a fresh context: navigate, wait, act, capture. The context is always closed. The
 * render ends when its signal aborts even if a browser call never settles: Playwright leaves
 * `context.newPage()` pending for good when the context closes under it, and `newContext()` may
 * still be launching when the budget runs out.
 */
export async function renderPage(request: RenderRequest): Promise<RenderedPage> {
  const { params, lease, clock } = request;
  const capture = params.network_capture;
  const remaining = (): number => request.deadline - Date.now();
  const budget = rejectOnAbort(request.signal);
  const creating = request.browser.newContext({
    proxy: { server: lease.server, username: lease.username, password: lease.password },
    viewport: request.headful ? VIEWPORT_HEADFUL : VIEWPORT_HEADLESS,
    acceptDownloads: false,
    serviceWorkers: 'block',
    timezoneId: request.geo?.timezoneId,
    locale: request.geo?.locale,
    storageState: request.session ? storageStateOf(request.session) : undefined,
  });
  let context: BrowserContext;
  try {
    context = await Promise.race([creating, budget.spent]);
  } catch (error) {
    budget.dispose();
    // A context that arrives after the render gave up is closed as soon as it exists.
    void creating.then((late) => late.close()).catch(() => undefined);
    if (error === BUDGET_SPENT) throw budgetTimeout(clock.stage);
    throw error;
  }
  try {
    return await Promise.race([renderInContext(context, request, capture, remaining), budget.spent]);
  } catch (error) {
    if (error === BUDGET_SPENT || (remaining() <= 0 && !(error instanceof ServiceError))) throw budgetTimeout(clock.stage);
    if (error instanceof ServiceError || error instanceof BrowserBroken) throw error;
    if (isBrowserGone(error)) throw new BrowserBroken(renderFailed('The browser stopped during the render', error));
    throw renderFailed(`Render failed at ${clock.stage}`, error);
  } finally {
    budget.dispose();
    // A context already gone with its browser rejects its close: that counts as closed.
    if (!(await settlesWithin(context.close(), CONTEXT_CLOSE_GRACE_MS))) request.onStuckBrowser();
  }
}

/** How long closing a render's context may take before its browser counts as stuck and is replaced. */
export const CONTEXT_CLOSE_GRACE_MS = 5_000;

const BUDGET_SPENT = Symbol('budget spent');

/** A promise that rejects with BUDGET_SPENT when `signal` aborts (at once if it has), never otherwise. */
function rejectOnAbort(signal: AbortSignal): { spent: Promise<never>; dispose(): void } {
  let onAbort = (): void => undefined;
  const spent = new Promise<never>((_, reject) => {
    onAbort = () => reject(BUDGET_SPENT);
  });
  spent.catch(() => undefined); // a render that loses the race to its own failure leaves this unobserved
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return { spent, dispose: () => signal.removeEventListener('abort', onAbort) };
}

async function renderInContext(
  context: BrowserContext,
  request: RenderRequest,
  capture: NetworkCapture | null,
  remaining: () => number,
): Promise<RenderedPage> {
  const { params, lease, clock } = request;
  const warnings: string[] = [];
  await installContextGuard(context, {
    blocked: blockedClasses(params, capture),
    customHeaders: params.custom_headers,
    targetOrigin: new URL(params.url).origin,
    method: params.method,
  });
  const page = await context.newPage();
  // The browser reads each HTML document in the encoding every engine decides (charset-declare.ts).
  await declareSharedCharset(page);
  const mainDocument = new MainDocument(page);
  const recorder = capture ? new NetworkRecorder(capture, clock.startedAt) : null;
  await recorder?.attach(page);

  const traffic = new NetworkQuiet(page);
  const navStarted = Date.now();
  const response = await clock.run('navigate', () => navigate(page, mainDocument, params.url, lease, remaining));
  const upstreamMs = Date.now() - navStarted;
  await page.waitForLoadState('load', { timeout: Math.max(1, Math.min(LOAD_GRACE_MS, remaining())) }).catch(() => undefined);
  // An explicit wait_for says what "ready" means; otherwise the page settles (settle.ts), within the budget.
  const settleBound = Math.min(SETTLE_MAX_MS, remaining() - SETTLE_BUDGET_RESERVE_MS);
  if (!params.wait_for && settleBound > 0) await clock.run('settle', () => settle(page, traffic, settleBound));
  traffic.detach();
  const dom = new PageDom(page);

  if (params.wait_for) {
    const selector = params.wait_for;
    const asked = params.wait_for_timeout > 0 ? params.wait_for_timeout : WAIT_FOR_DEFAULT_MS;
    const found = await clock.run('wait_for', async () => {
      // Already there (the common case once `load` fired): no need for Playwright's selector engine.
      if ((await dom.has(selector)) === true) return true;
      const limit = Math.min(asked, remaining());
      const appeared = await page.waitForSelector(selector, { state: 'attached', timeout: Math.max(1, limit) }).then(
        () => true,
        (error: unknown) => {
          if (isBrowserGone(error)) throw error;
          return false;
        },
      );
      if (!appeared && limit < asked) throw budgetTimeout('wait_for');
      return appeared;
    });
    if (!found) warnings.push('RENDER_DEGRADED');
  }
  if (params.wait > 0) {
    if (params.wait >= remaining()) throw budgetTimeout('wait');
    await clock.run('wait', () => page.waitForTimeout(params.wait));
  }
  const screenshots: Screenshot[] = [];
  let actionResults: unknown[] | undefined;
  if (params.actions && params.actions.length > 0) {
    const steps = params.actions;
    const outcome = await clock.run('actions', () =>
      runActions(page, steps, { remainingMs: remaining, canScreenshot: request.canRasterise, screenshotFormat: params.screenshot_format, warnings }),
    );
    actionResults = outcome.results;
    screenshots.push(...outcome.screenshots);
  }
  if (mainDocument.navigating) await clock.run('follow_navigation', () => mainDocument.settle(Math.min(LOAD_GRACE_MS, remaining())));
  if (params.screenshot && request.canRasterise) {
    const shot = await clock
      .run('screenshot', () =>
        takeScreenshot(page, {
          name: 'screenshot',
          fullPage: params.screenshot_fullpage,
          selector: params.screenshot_selector,
          format: params.screenshot_format,
          quality: params.screenshot_quality,
          timeoutMs: Math.max(1, Math.min(WAIT_FOR_DEFAULT_MS, remaining())),
        }, warnings),
      )
      .catch((error: unknown) => {
        if (isBrowserGone(error)) throw error;
        if (error instanceof Error && error.message.startsWith('SCREENSHOT_REFUSED')) warnings.push(error.message);
        return null; // Undelivered: the page still returns, and the gateway bills 0.
      });
    if (shot) screenshots.unshift(shot);
  }
  let pdf: Buffer | undefined;
  if (params.response_format === 'pdf') {
    if (!request.canRasterise || request.headful) {
      throw new ServiceError('ERR::REQUEST::CAPABILITY_UNSUPPORTED', 'PDF needs chromium in headless mode');
    }
    pdf = await clock.run('pdf', () => printPdf(page));
  }
  const document = await clock.run('capture', () => captureDocument(page, currentDocument(mainDocument, response, lease), dom));
  const captured = recorder ? await recorder.finish() : undefined;
  const network: NetworkEntry[] | undefined = captured?.entries;
  if (captured) warnings.push(...captured.warnings);
  const session = request.session ? await sessionStateAfter(context, request.session) : undefined;
  const blocked = detectChallenge({
    status: document.status,
    headers: document.headers,
    body: document.text ?? '',
    url: document.finalUrl,
  });
  return { ...document, pdf, screenshots, network, actionResults, warnings, blocked, session, upstreamMs };
}

/**
 * The response of the document the page shows now. A later navigation of the page's own that the
 * guard refused, or that failed, fails the render as the first navigation would have.
 */
function currentDocument(mainDocument: MainDocument, first: Response, lease: EgressLease): Response {
  const current = mainDocument.response(first);
  const refusal = current.headers()[EGRESS_ERROR_HEADER];
  if (refusal !== undefined) throw egressRefusal(lease, refusal);
  const failed = mainDocument.failedNavigation();
  if (failed !== null) throw navigationError(new Error(failed), lease, false);
  return current;
}

async function navigate(page: Page, mainDocument: MainDocument, url: string, lease: EgressLease, remaining: () => number): Promise<Response> {
  let response: Response | null;
  try {
    response = await page.goto(url, { waitUntil: 'domcontentloaded', timeout: Math.max(1, remaining()) });
  } catch (error) {
    // Full Chromium fails the navigation of an HTTP error status with an empty body; the target did answer.
    const answered = mainDocument.errorStatusWithoutBody(error);
    if (answered) return answered;
    const mapped = navigationError(error, lease, remaining() <= 0);
    if (mapped.code === 'ERR::ENGINE::RENDER_FAILED') throw new BrowserBroken(mapped);
    throw mapped;
  }
  if (response === null) throw renderFailed('The navigation produced no response');
  const refusal = response.headers()[EGRESS_ERROR_HEADER];
  if (refusal !== undefined) throw egressRefusal(lease, refusal);
  return response;
}
