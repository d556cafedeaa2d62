import type { Router } from 'express';
import { openRemoteBrowser } from '../browser/open.js';
import type { GatewayContext } from '../context.js';
import { noQueryParameters } from '../query-parameters.js';
import { RouteTable } from './declare.js';

/** GET /v1/workers (any valid key) and GET /v1/browser (scope `browser`: a WebSocket upgrade, gateway/browser/). */
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
  routes.declare('remoteBrowser', (req, res, next) => {
    openRemoteBrowser(context, req, res).catch(next);
  });
  return routes.router();
}
