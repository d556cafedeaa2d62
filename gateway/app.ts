import { docsBaseOf } from '../lib/config.js';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { ServiceError } from '../lib/errors/index.js';
import type { GatewayContext } from './context.js';
import './request-state.js';
import { sendProblem, logUnexpected } from './http-errors.js';
import { authenticate } from './middleware/auth.js';
import { rateLimit } from './middleware/rate-limit.js';
import { httpFraming } from './middleware/http-framing.js';
import { inOrder } from './middleware/in-order.js';
import { requestId } from './middleware/request-id.js';
import { urlInput } from './middleware/url-input.js';
import { recordRequests } from './request-log/record-requests.js';
import { fleetRoutes } from './routes/fleet.js';
import { healthRoutes } from './routes/health.js';
import { requestLogRoutes } from './routes/requests.js';
import { scrapeRoutes, scrapeShortcut, unlessScrape } from './routes/scrape.js';
import { sessionRoutes } from './routes/sessions.js';
import { usageRoutes } from './routes/usage.js';
import { batchRoutes } from './routes/batch.js';
import { operation, operationLabel } from './routes/declare.js';
import { crawlRoutes } from './routes/crawl.js';
import { referenceRoutes, REFERENCE_PATH } from './routes/reference.js';
import { webhookRoutes } from './routes/webhooks.js';
import { mcpRoutes } from './routes/mcp.js';

const BROWSER_PATH = operation('remoteBrowser').path;

/** The gateway's HTTP surface. Routes are added in one place; everything else is a problem+json 404. */
export function createApp(context: GatewayContext, state: { draining: () => boolean }) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  const first = [requestId(context.logger), httpFraming(), observe(context)];
  const identified = [authenticate(context.keys, BROWSER_PATH), recordRequests(context)];
  // The hot path: the same middlewares as below, in the same order, then the scrape route, whose admission takes the token.
  app.use(scrapeShortcut(context, [...first, ...identified]));
  app.use(inOrder(...first));
  app.use(healthRoutes(context, state));
  // Public like the probes: the API's own description (docs/api-reference.md).
  app.use(referenceRoutes(context));
  app.use('/v1', inOrder(...identified, unlessScrape(inOrder(rateLimit(context), urlInput()))));
  app.use(scrapeRoutes(context));
  app.use(fleetRoutes(context));
  app.use(requestLogRoutes(context));
  app.use(sessionRoutes(context));
  app.use(usageRoutes(context));
  app.use(batchRoutes(context));
  app.use(crawlRoutes(context));
  app.use(webhookRoutes(context));
  app.use(mcpRoutes(context));
  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new ServiceError('ERR::REQUEST::NOT_FOUND', `No route ${req.method} ${req.path}`));
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    logUnexpected(res.locals.logger ?? context.logger, error);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(req, res, normaliseExpressError(error), {
      docsUrl: docsBaseOf(context.config, req.get('host') ? `${req.protocol}://${req.get('host')}` : undefined),
      browserRoute: req.path === BROWSER_PATH,
    });
  });
  return app;
}

/** Express' own errors (a body parser's, a malformed URI) become catalogue errors. */
function normaliseExpressError(error: unknown): unknown {
  if (error instanceof ServiceError) return error;
  const status = (error as { status?: number } | null)?.status;
  if (status === 413) return new ServiceError('ERR::REQUEST::PAYLOAD_TOO_LARGE', 'Request body too large');
  if (status === 400) return new ServiceError('ERR::REQUEST::INVALID', 'Malformed request');
  return error;
}

function observe(context: GatewayContext) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = Date.now();
    res.on('finish', () => {
      const route = routeLabel(req);
      context.metrics.requests.inc({ route, method: req.method, status: String(res.statusCode) });
      context.metrics.duration.observe({ route }, (Date.now() - started) / 1000);
      const logger = res.locals.logger ?? context.logger;
      logger.info({ method: req.method, route, status: res.statusCode, ms: Date.now() - started }, 'request');
    });
    next();
  };
}

/** Bounded metric labels: the route's path template from the route table, never a raw path with ids in it. */
function routeLabel(req: Request): string {
  if (req.path.startsWith(REFERENCE_PATH)) return `${REFERENCE_PATH}/…`;
  return operationLabel(req.path) ?? 'other';
}
