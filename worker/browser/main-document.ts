import type { Page, Request, Response } from 'playwright-core';

/** Chromium's network error for an HTTP error status with an empty body, which it will not show. */
const EMPTY_ERROR_STATUS = 'ERR_HTTP_RESPONSE_CODE_FAILURE';

/** Answers after which Chromium keeps the current document (no content, reset content). */
const NO_DOCUMENT_STATUSES = new Set([204, 205]);

/**
 * The main frame's latest document, followed across the navigations a page makes on its own after
 * the first one (a script setting `location`, a meta refresh), so the capture describes the document
 * the caller gets and a refused or failed later navigation is not taken for the first page.
 */
export class MainDocument {
  private latest: Response | null = null;
  private failure: string | null = null;
  /** A main-frame navigation has started and its document has not replaced the current one yet. */
  private inFlight = false;
  private landed: Array<() => void> = [];

  constructor(private readonly page: Page) {
    page.on('request', (request) => {
      if (this.isMainNavigation(request)) this.inFlight = true;
    });
    page.on('response', (response) => {
      if (!this.isMainNavigation(response.request())) return;
      this.latest = response;
      this.failure = null;
      if (NO_DOCUMENT_STATUSES.has(response.status())) this.land();
    });
    page.on('requestfailed', (request) => {
      if (!this.isMainNavigation(request)) return;
      const errorText = request.failure()?.errorText ?? 'net::ERR_FAILED';
      // The target answered (an error status with an empty body): its response is the document.
      if (!errorText.includes(EMPTY_ERROR_STATUS)) this.failure = errorText;
      this.land();
    });
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.land();
    });
  }

  /** Whether a navigation of the main frame is under way. */
  get navigating(): boolean {
    return this.inFlight;
  }

  /**
   * Waits, at most `timeoutMs`, for a navigation the page started on its own (a script setting
   * `location` on load, a meta refresh) to replace the document, so the capture is not of a page
   * that is going away. Returns at once when none is under way.
   */
  async settle(timeoutMs: number): Promise<void> {
    if (!this.inFlight || timeoutMs <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    const landed = new Promise<boolean>((resolve) => this.landed.push(() => resolve(true)));
    const expired = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const replaced = await Promise.race([landed, expired]);
    clearTimeout(timer);
    if (replaced) await this.page.waitForLoadState('domcontentloaded', { timeout: timeoutMs }).catch(() => undefined);
  }

  /** The response of the main frame's latest navigation, or `first` when it made none after it. */
  response(first: Response): Response {
    return this.latest ?? first;
  }

  /**
   * The network error of the main frame's latest navigation when it got no response and the frame
   * shows Chromium's error page for it; null otherwise (an HTTP error status with an empty body also
   * shows that page, but it is the target's answer).
   */
  failedNavigation(): string | null {
    return this.failure !== null && showsNoTargetDocument(this.page.url()) ? this.failure : null;
  }

  /** The target's answer when `error` is Chromium refusing to show an HTTP error status with an empty body. */
  errorStatusWithoutBody(error: unknown): Response | null {
    if (!(error instanceof Error) || !error.message.includes(EMPTY_ERROR_STATUS)) return null;
    return this.latest !== null && this.latest.status() >= 400 ? this.latest : null;
  }

  private land(): void {
    this.inFlight = false;
    for (const wake of this.landed.splice(0)) wake();
  }

  private isMainNavigation(request: Request): boolean {
    try {
      return request.isNavigationRequest() && request.frame() === this.page.mainFrame();
    } catch {
      return false; // A request with no frame (a service worker's): not the main document.
    }
  }
}

/**
 * Whether the frame shows no document of the target's: Chromium's own error page (a failed navigation,
 * or an HTTP error status with an empty body), or still the blank page when that navigation failed.
 */
export function showsNoTargetDocument(url: string): boolean {
  return url.startsWith('chrome-error://') || url === 'about:blank';
}
