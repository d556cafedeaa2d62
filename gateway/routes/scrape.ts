import { Router, type Request, type Response } from 'express';
import { parseScrapeBody, parseScrapeQuery, type ProjectDefaults } from '../../lib/scrape/params.js';
import type { ScrapeParams } from '../../lib/scrape/types.js';
import type { GatewayContext } from '../context.js';
import { jsonBody } from '../middleware/json-body.js';
import { principalOf, scope } from '../middleware/auth.js';
import { methodNotAllowed } from '../middleware/method-not-allowed.js';
import { performScrape, ScrapeFailed } from '../scrape/scrape-service.js';
import { sendScrapeSuccess } from '../scrape/respond.js';

/** GET and POST /v1/scrape (scope `scrape`). */
export function scrapeRoutes(context: GatewayContext): Router {
  const router = Router();
  const handle = (read: (req: Request, res: Response, defaults: ProjectDefaults) => ScrapeParams) =>
    async (req: Request, res: Response) => {
      const principal = principalOf(res);
      const params = read(req, res, principal.project.defaults as ProjectDefaults);
      const slot = context.concurrency.acquire(principal.organization.id, principal.organization.concurrency_limit);
      res.setHeader('Concurrency-Limit', String(slot.limit));
      res.setHeader('Concurrency-Remaining', String(slot.remaining));
      try {
        const outcome = await performScrape(context, {
          requestId: res.locals.requestId as string,
          principal,
          params,
          receivedAt: res.locals.receivedAt as number,
        });
        sendScrapeSuccess(res, outcome, params, 'miss');
      } catch (error) {
        throw error instanceof ScrapeFailed ? error.error : error;
      } finally {
        slot.release();
      }
    };
  router
    .route('/v1/scrape')
    .get(
      scope('scrape'),
      handle((req, _res, defaults) => parseScrapeQuery(req.query as Record<string, unknown>, parseOptions(context, defaults))),
    )
    .post(
      scope('scrape'),
      jsonBody({ required: true }),
      handle((_req, res, defaults) => parseScrapeBody(res.locals.body, parseOptions(context, defaults))),
    )
    .all(methodNotAllowed(['GET', 'POST']));
  return router;
}

function parseOptions(context: GatewayContext, projectDefaults: ProjectDefaults) {
  return { projectDefaults, egressPolicy: context.egressPolicy };
}
