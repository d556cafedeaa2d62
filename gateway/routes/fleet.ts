import { Router } from 'express';
import { ServiceError } from '../../lib/errors/index.js';
import type { GatewayContext } from '../context.js';
import { scope } from '../middleware/auth.js';
import { methodNotAllowed } from '../middleware/method-not-allowed.js';
import { noQueryParameters } from '../query-parameters.js';

/** GET /v1/workers (any valid key) and GET /v1/browser (scope `browser`, not available). */
export function fleetRoutes(context: GatewayContext): Router {
  const router = Router();
  router
    .route('/v1/workers')
    .get(noQueryParameters, (_req, res) => {
      res.json({
        workers: context.directory.list(),
        engines: context.directory.summary(),
        transport: context.bus.transport,
        observed_at: new Date().toISOString(),
      });
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/v1/browser')
    .get(scope('browser'), () => {
      throw new ServiceError('ERR::ENGINE::UNAVAILABLE', 'The remote browser (CDP over WebSocket) is not available yet');
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
