import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Scope } from '../../lib/store/accounts.js';
import { toServiceError, type ServiceError } from '../../lib/errors/index.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import type { GatewayContext } from '../context.js';
import { inOrder } from '../middleware/in-order.js';
import { admitScrape } from '../scrape/admission.js';
import { scrapeLogEntry } from '../scrape/log-entry.js';
import { performScrape, ScrapeFailed, type ScrapeRecord, type ScrapeSucceeded } from '../scrape/scrape-service.js';
import { prepareScrapeAnswer } from '../scrape/respond.js';
import { declareRoutes, operation, scopeOf } from './declare.js';

const GET = operation('scrapeGet');
const POST = operation('scrapePost');
const SCRAPE_PATH = POST.path;

/** GET and POST /v1/scrape (scope `scrape`). Every request, success or error, is written to the request log. */
export function scrapeRoutes(context: GatewayContext): Router {
  const { get, post } = scrapeHandlers(context);
  // The admission checks the scope, in its own order; Express would otherwise run (and bill) a whole scrape for HEAD and drop the body.
  return declareRoutes(Router(), [{ operationId: GET.operationId, handlers: get }, { operationId: POST.operationId, handlers: post }], { scopeChecked: 'by-handler', refuseHead: true });
}

/**
 * POST and GET /v1/scrape as the app's first layer: `before` (the middlewares the router would run
 * first, in its order) and then the route's own, as one layer, so the router never walks its other
 * layers, sub-routers and route dispatch for the hot path (docs/platform.md, "Performance"). Only
 * the exact path is taken here; any other spelling Express would match goes through the router as
 * before. An error goes to the app's error handler as through the router.
 */
export function scrapeShortcut(context: GatewayContext, before: RequestHandler[]): RequestHandler {
  const { get, post } = scrapeHandlers(context);
  const postChain = inOrder(...before, ...post);
  const getChain = inOrder(...before, ...get);
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'POST' && req.url === SCRAPE_PATH) return postChain(req, res, next);
    if (req.method === 'GET' && req.path === SCRAPE_PATH) return getChain(req, res, next);
    next();
  };
}

/** Under the `/v1` mount, the paths the router matches to SCRAPE_PATH (case-insensitive, optional trailing slash, as Express). */
const SCRAPE_UNDER_V1 = /^\/scrape\/?$/i;

/**
 * `handler` for every request but those the scrape route admits itself (GET and POST, scrape/admission.ts):
 * the rate token and the path checks of other routes, which a scrape's admission does in its own order.
 */
export function unlessScrape(handler: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if ((req.method === 'GET' || req.method === 'POST') && SCRAPE_UNDER_V1.test(req.path)) return next();
    return handler(req, res, next);
  };
}

function scrapeHandlers(context: GatewayContext): { get: RequestHandler[]; post: RequestHandler[] } {
  const handler = (scope: Scope) => (req: Request, res: Response) => context.work.track(handleScrape(context, scope, req, res));
  return { get: [handler(scopeOf(GET)!)], post: [handler(scopeOf(POST)!)] };
}

async function handleScrape(context: GatewayContext, scope: Scope, req: Request, res: Response): Promise<void> {
  // Refusals before the slot (rate, path, query, scope, body) are answered like any route's.
  const admission = await admitScrape(context, scope, req, res);
  const { principal } = admission;
  let params: ScrapeParams | null = null;
  let record: ScrapeRecord | null = null;
  let success: ScrapeSucceeded | null = null;
  let failure: ServiceError | null = null;
  let body: Buffer | null = null;
  let clientGone = false;
  res.on('close', () => {
    if (!res.writableFinished) clientGone = true;
  });
  try {
    if ('refusal' in admission) throw admission.refusal;
    const { slot, hold } = admission;
    params = admission.params;
    try {
      success = await performScrape(context, { requestId: res.locals.requestId, principal, params, priced: admission.priced, receivedAt: res.locals.receivedAt, hold });
    } finally {
      await slot.release();
    }
    body = prepareScrapeAnswer(res, success, params);
  } catch (error) {
    if (error instanceof ScrapeFailed) record = error.record;
    failure = toServiceError(error instanceof ScrapeFailed ? error.error : error);
  }
  // Written by the one request-log writer as the answer ends (request-log/record-requests.ts), which counts bytes_out.
  res.locals.requestLogEntry = scrapeLogEntry({
    requestId: res.locals.requestId,
    receivedAt: res.locals.receivedAt,
    projectId: principal.project.id,
    params,
    rawUrl: rawUrlOf(req, res),
    record,
    success,
    error: failure,
    bytesIn: res.locals.bytesIn ?? 0,
    bytesOut: body?.length ?? 0,
    clientGone,
  });
  if (failure) throw failure;
  res.end(body);
}

function rawUrlOf(req: Request, res: Response): string | null {
  const candidate = req.method === 'GET' ? req.query.url : bodyUrl(res.locals.body);
  return typeof candidate === 'string' ? candidate.slice(0, 8192) : null;
}

function bodyUrl(body: unknown): unknown {
  return typeof body === 'object' && body !== null ? (body as { url?: unknown }).url : undefined;
}
