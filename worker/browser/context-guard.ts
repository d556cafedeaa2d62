import type { BrowserContext, Page, Request, Route } from 'playwright-core';
import type { ResourceClass } from '../../lib/scrape/vocabulary.js';
import { resourceClassOf } from './resource-blocking.js';

export interface ContextGuardOptions {
  blocked: Set<ResourceClass>;
  /** Sent on requests to the target's own origin only, so third parties never see them. */
  customHeaders: Record<string, string>;
  targetOrigin: string;
  /** Method for the first main-document request when it is not GET. */
  method: string;
}

export interface ContextGuardStats {
  blockedRequests: number;
  refusedSchemes: string[];
  closedPopups: number;
}

const ALLOWED_SCHEMES = new Set(['http:', 'https:']);

/** A popup's first request has no frame yet; it is not our main document either way. */
function isTopFrame(request: Request): boolean {
  try {
    return request.frame().parentFrame() === null;
  } catch {
    return false;
  }
}

function schemeOf(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return 'invalid:';
  }
}

/**
 * Request-level policy of one browser context: non-http(s) schemes refused, blocked resource
 * classes aborted, custom headers added on the target's origin, popups closed. Connections the
 * allowed requests make still go through the egress guard proxy, which checks the address.
 */
export async function installContextGuard(
  context: BrowserContext,
  options: ContextGuardOptions,
): Promise<ContextGuardStats> {
  const stats: ContextGuardStats = { blockedRequests: 0, refusedSchemes: [], closedPopups: 0 };
  const hasHeaders = Object.keys(options.customHeaders).length > 0;
  let methodApplied = options.method === 'GET';

  const handle = async (route: Route): Promise<void> => {
    const request = route.request();
    const url = request.url();
    const scheme = schemeOf(url);
    if (!ALLOWED_SCHEMES.has(scheme)) {
      if (stats.refusedSchemes.length < 20) stats.refusedSchemes.push(scheme);
      await route.abort('accessdenied').catch(() => undefined);
      return;
    }
    const isMainDocument = request.isNavigationRequest() && isTopFrame(request);
    if (!isMainDocument && options.blocked.has(resourceClassOf(request.resourceType()))) {
      stats.blockedRequests += 1;
      await route.abort('blockedbyclient').catch(() => undefined);
      return;
    }
    const overrides: { headers?: Record<string, string>; method?: string } = {};
    if (hasHeaders && new URL(url).origin === options.targetOrigin) {
      overrides.headers = { ...(await request.allHeaders()), ...options.customHeaders };
    }
    if (!methodApplied && isMainDocument) {
      methodApplied = true;
      overrides.method = options.method;
    }
    await route.continue(overrides).catch(() => undefined);
  };
  await context.route('**/*', (route: Route) => handle(route).catch(() => route.abort('failed').catch(() => undefined)));

  if (options.blocked.has('websocket')) {
    await context.routeWebSocket(/.*/, async (ws) => {
      stats.blockedRequests += 1;
      await ws.close({ code: 1008, reason: 'blocked' }).catch(() => undefined);
    });
  }

  // The first page of the context is the render's own; any later one is a popup.
  let mainPage: Page | null = null;
  context.on('page', (page) => {
    if (mainPage === null) {
      mainPage = page;
    } else if (page !== mainPage) {
      stats.closedPopups += 1;
      void page.close().catch(() => undefined);
    }
  });
  return stats;
}
