import type { NextFunction, Request, Response, Router } from 'express';
import { apiReferenceRouter } from '../../lib/api-reference/router.js';
import { ServiceError } from '../../lib/errors/index.js';
import { OWN_DOCS_PATH } from '../../lib/config.js';
import type { GatewayContext } from '../context.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import { rejectQueryParameters } from '../query-parameters.js';
import { operation, RouteTable } from './declare.js';

/** The rendered reference's mount: its operation's path without the trailing slash. */
export const REFERENCE_PATH = operation('apiReference').path.replace(/\/$/, '');

/**
 * GET /v1/openapi.json and the rendered reference under /v1/reference/. Both are public, like the
 * probes: the document describes the API and holds nothing of any tenant (docs/api-reference.md).
 */
export function referenceRoutes(context: GatewayContext): Router {
  // Built on first use, not at start: nothing on the way to serving scrapes waits for it.
  let built: Record<string, unknown> | null = null;
  const document = () => (built ??= buildOpenApiDocument({ version: context.version, docsUrl: context.config.DOCS_URL ?? OWN_DOCS_PATH }));
  const routes = new RouteTable();
  routes.declare('openapiDocument', (req, res) => {
    rejectQueryParameters(req);
    res.setHeader('Cache-Control', 'no-cache');
    res.json(document());
  });
  const router = routes.router();
  router.use(REFERENCE_PATH, apiReferenceRouter(async () => document()), (req: Request, _res: Response, next: NextFunction) => {
    next(new ServiceError('ERR::REQUEST::NOT_FOUND', `No route ${req.method} ${req.originalUrl.split('?')[0]}`));
  });
  return router;
}
