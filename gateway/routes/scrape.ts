import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { toServiceError, type ServiceError } from '../../lib/errors/index.js';
import { parseScrapeBody, parseScrapeQuery, type ProjectDefaults } from '../../lib/scrape/params.js';
import type { ScrapeParams } from '../../lib/scrape/types.js';
import type { GatewayContext } from '../context.js';
import { concurrencyExceeded, type ConcurrencySlot } from '../limits/concurrency.js';
import { releaseAdmittedHold } from '../limits/limits.js';
import { inOrder } from '../middleware/in-order.js';
import { jsonBody } from '../middleware/json-body.js';
import { principalOf, scope } from '../middleware/auth.js';
import { methodNotAllowed } from '../middleware/method-not-allowed.js';
import { noQueryParameters } from '../query-parameters.js';
import { scrapeParseOptions } from '../scrape/admission-hold.js';
import { scrapeLogEntry } from '../scrape/log-entry.js';
import { performScrape, ScrapeFailed, type ScrapeRecord, type ScrapeSucceeded } from '../scrape/scrape-service.js';
import { sendScrapeSuccess } from '../scrape/respond.js';

type ReadParams = (req: Request, res: Response, defaults: ProjectDefaults) => ScrapeParams;

const SCRAPE_PATH = '/v1/scrape';

/** GET and POST /v1/scrape (scope `scrape`). Every request, success or error, is written to the request log. */
export function scrapeRoutes(context: GatewayContext): Router {
  const { get, post } = scrapeHandlers(context);
  const router = Router();
  router
    .route(SCRAPE_PATH)
    // Express would otherwise run (and bill) a whole scrape for HEAD and drop the body.
    .head(methodNotAllowed(['GET', 'POST']))
    .get(...get)
    .post(...post)
    .all(methodNotAllowed(['GET', 'POST']));
  return router;
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

function scrapeHandlers(context: GatewayContext): { get: RequestHandler[]; post: RequestHandler[] } {
  return {
    get: [scope('scrape'), handler(context, (req, _res, defaults) => parseScrapeQuery(req.query as Record<string, unknown>, scrapeParseOptions(context, defaults)))],
    post: [scope('scrape'), noQueryParameters, jsonBody({ required: true }), handler(context, (_req, res, defaults) => parseScrapeBody(res.locals.body, scrapeParseOptions(context, defaults)))],
  };
}

function handler(context: GatewayContext, read: ReadParams) {
  return (req: Request, res: Response) => context.work.track(handleScrape(context, read, req, res));
}

async function handleScrape(context: GatewayContext, read: ReadParams, req: Request, res: Response): Promise<void> {
  const principal = principalOf(res);
  let params: ScrapeParams | null = null;
  let record: ScrapeRecord | null = null;
  let success: ScrapeSucceeded | null = null;
  let failure: ServiceError | null = null;
  let body: Buffer | null = null;
  let clientGone = false;
  res.on('close', () => {
    if (!res.writableFinished) clientGone = true;
  });
  // Taken with the slot (middleware/rate-limit.ts): performScrape settles it once it has it; until then, this route.
  let unspentHold = res.locals.admittedHold ?? null;
  res.locals.admittedHold = undefined;
  try {
    const slot = await acquireSlot(context, res, principal.organization.id, principal.organization.concurrency_limit);
    res.setHeader('Concurrency-Limit', String(slot.limit));
    res.setHeader('Concurrency-Remaining', String(slot.remaining));
    try {
      params = res.locals.scrapeParams ?? read(req, res, principal.project.defaults as ProjectDefaults);
      const heldEarly = unspentHold;
      unspentHold = null;
      success = await performScrape(context, {
        requestId: res.locals.requestId,
        principal,
        params,
        receivedAt: res.locals.receivedAt,
        slot,
        heldEarly,
      });
    } finally {
      if (unspentHold) {
        await releaseAdmittedHold(context.db, unspentHold, slot).catch((error: unknown) => res.locals.logger.warn({ err: error }, 'releasing a hold'));
      }
      await slot.release();
    }
    body = sendScrapeSuccess(res, success, params);
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

/** The slot taken with the request's token (middleware/rate-limit.ts), or one acquired now. */
async function acquireSlot(context: GatewayContext, res: Response, organizationId: string, limit: number): Promise<ConcurrencySlot> {
  const admitted = res.locals.admittedSlot;
  res.locals.admittedSlot = undefined;
  if (admitted === 'full') throw concurrencyExceeded(limit);
  return admitted ?? context.concurrency.acquire(organizationId, limit);
}

function rawUrlOf(req: Request, res: Response): string | null {
  const candidate = req.method === 'GET' ? req.query.url : bodyUrl(res.locals.body);
  return typeof candidate === 'string' ? candidate.slice(0, 8192) : null;
}

function bodyUrl(body: unknown): unknown {
  return typeof body === 'object' && body !== null ? (body as { url?: unknown }).url : undefined;
}
