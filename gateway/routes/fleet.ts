import type { Router } from 'express';
import { ServiceError } from '../../lib/errors/index.js';
import type { GatewayContext } from '../context.js';
import { noQueryParameters } from '../query-parameters.js';
import { RouteTable } from './declare.js';

/** GET /v1/workers (any valid key) and GET /v1/browser (scope `browser`, not available). */
export function fleetRoutes(context: GatewayContext): Router {
  const routes = new RouteTable();
  routes.declare('listWorkers', noQueryParameters, (_req, res) => {
    res.json({
      workers: context.directory.list(),
      engines: context.directory.summary(),
      transport: context.bus.transport,
      observed_at: new Date().toISOString(),
    });
  });
  routes.declare('remoteBrowser', () => {
    throw new ServiceError('ERR::ENGINE::UNAVAILABLE', 'The remote browser (CDP over WebSocket) is not available yet');
  });
  return routes.router();
}
