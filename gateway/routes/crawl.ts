import { Router, type Request, type Response } from 'express';
import { getJob } from '../../lib/store/batch/jobs.js';
import { getCrawl } from '../../lib/store/crawl.js';
import type { GatewayContext } from '../context.js';
import { principalOf, scope } from '../middleware/auth.js';
import { jsonBody } from '../middleware/json-body.js';
import { methodNotAllowed } from '../middleware/method-not-allowed.js';
import { noQueryParameters, rejectQueryParameters } from '../query-parameters.js';
import { jobIdFrom } from '../batch/batch-query.js';
import { notFound } from '../batch/service.js';
import { crawlObject } from '../crawl/crawl-view.js';
import { mapSite } from '../crawl/map.js';
import { createCrawl } from '../crawl/service.js';

/** /v1/crawl (scope `batch`; a crawl is a batch job, so the /v1/batch/{id} routes take its id) and /v1/map (scope `scrape`). docs/crawl.md. */
export function crawlRoutes(context: GatewayContext): Router {
  const router = Router();

  router
    .route('/v1/crawl')
    .post(scope('batch'), noQueryParameters, jsonBody({ required: true }), async (_req, res) => {
      const principal = principalOf(res);
      const { job, warnings } = await createCrawl(context, principal, res.locals.body);
      const crawl = await getCrawl(context.db, job.id);
      res.setHeader('X-Credits-Charged', '0');
      res.status(202).json(crawl ? await crawlObject(context.db, job, crawl, warnings) : job);
    })
    .all(methodNotAllowed(['POST']));

  router
    .route('/v1/crawl/:crawlID')
    .get(scope('batch'), async (req: Request, res: Response) => {
      rejectQueryParameters(req);
      const raw = String(req.params.crawlID);
      const id = jobIdFrom(raw);
      const job = id === null ? null : await getJob(context.db, id, principalOf(res).project.id);
      const crawl = job === null ? null : await getCrawl(context.db, job.id);
      if (job === null || crawl === null) throw notFound(raw);
      res.setHeader('Cache-Control', 'no-store').json(await crawlObject(context.db, job, crawl));
    })
    .all(methodNotAllowed(['GET']));

  router
    .route('/v1/map')
    .post(scope('scrape'), noQueryParameters, jsonBody({ required: true }), async (_req, res) => {
      const map = await mapSite(context, res.locals.body);
      res.setHeader('X-Credits-Charged', '0');
      res.setHeader('Cache-Control', 'no-store').status(200).json({ success: true, links: map.links });
    })
    .all(methodNotAllowed(['POST']));

  return router;
}
