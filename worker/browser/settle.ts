import type { Page, Request } from 'playwright-core';

/**
 * After `load`, a render waits for the page to settle (docs/browser-engines.md "Settling"): no request
 * in flight for NETWORK_QUIET_MS and no DOM mutation for DOM_QUIET_MS, bounded by SETTLE_MAX_MS and by
 * the request's budget. Content a page fetches at load and inserts a moment later is then in the
 * document, not a "Loading…" placeholder. An explicit `wait_for` replaces this wait; `wait` adds to it.
 */
export const NETWORK_QUIET_MS = 300;
export const DOM_QUIET_MS = 200;
export const SETTLE_MAX_MS = 3_000;
/** Requests that never end by design (event streams, long polls) do not hold the wait past the bound. */
const POLL_MS = 25;

/** Counts the page's requests in flight from before navigation, so requests the page starts at load are seen. */
export class NetworkQuiet {
  private inFlight = new Set<Request>();
  private lastChange = Date.now();
  private readonly started = (request: Request) => {
    this.inFlight.add(request);
    this.lastChange = Date.now();
  };
  private readonly ended = (request: Request) => {
    if (this.inFlight.delete(request)) this.lastChange = Date.now();
  };

  constructor(private readonly page: Page) {
    page.on('request', this.started);
    page.on('requestfinished', this.ended);
    page.on('requestfailed', this.ended);
  }

  /** How long the network has been idle, 0 while a request is in flight. */
  quietFor(now = Date.now()): number {
    return this.inFlight.size > 0 ? 0 : now - this.lastChange;
  }

  detach(): void {
    this.page.off('request', this.started);
    this.page.off('requestfinished', this.ended);
    this.page.off('requestfailed', this.ended);
  }
}

/** Resolves once the network and the DOM were both quiet, or at `maxMs`; says which. */
export async function settle(page: Page, network: NetworkQuiet, maxMs: number): Promise<'settled' | 'bounded'> {
  const deadline = Date.now() + Math.max(0, maxMs);
  while (Date.now() < deadline) {
    const idle = network.quietFor();
    if (idle < NETWORK_QUIET_MS) {
      await page.waitForTimeout(Math.min(POLL_MS + NETWORK_QUIET_MS - idle, Math.max(1, deadline - Date.now())));
      continue;
    }
    const domQuiet = await page
      .evaluate(domQuietWithin, { quietMs: DOM_QUIET_MS, maxMs: Math.max(0, deadline - Date.now()) })
      .catch(() => true); // a navigation replaced the document: the follow-navigation step handles it
    if (domQuiet && network.quietFor() >= NETWORK_QUIET_MS) return 'settled';
  }
  return 'bounded';
}

/** In the page: true once no mutation happened for `quietMs`, false at `maxMs`. Leaves nothing behind. */
function domQuietWithin({ quietMs, maxMs }: { quietMs: number; maxMs: number }): Promise<boolean> {
  return new Promise((resolve) => {
    let quietTimer = 0;
    const finish = (quiet: boolean) => {
      observer.disconnect();
      clearTimeout(quietTimer);
      clearTimeout(limitTimer);
      resolve(quiet);
    };
    const observer = new MutationObserver(() => {
      clearTimeout(quietTimer);
      quietTimer = setTimeout(() => finish(true), quietMs) as unknown as number;
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    quietTimer = setTimeout(() => finish(true), quietMs) as unknown as number;
    const limitTimer = setTimeout(() => finish(false), maxMs);
  });
}
