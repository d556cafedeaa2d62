import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { OWN_DOCS_PATH, type Config } from '../lib/config.js';
import { createLimitedServer, dashboardServerLimits } from '../lib/http-server-limits.js';
import { ServiceError, problemBody, toServiceError } from '../lib/errors/index.js';
import type { Logger } from '../lib/log.js';
import { listenMovable, type PortMoved } from '../lib/movable-port.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { Ledger } from '../lib/billing/ledger.js';
import type { Db } from '../lib/store/db.js';
import { packageRoot } from '../lib/version.js';
import { ApiClient } from './api-client.js';
import { checkCsrf, requireUser } from './auth/session.js';
import type { DashboardContext } from './context.js';
import { loadMembership } from './org-access.js';
import { accountRoutes } from './routes/account.js';
import { API_REFERENCE_PATH, apiReferenceRoutes } from './routes/api-reference.js';
import { batchRoutes } from './routes/batch.js';
import { crawlRoutes } from './routes/crawl.js';
import { BATCH_SUBMIT_BODY_LIMIT, batchSubmitRoutes } from './routes/batch-submit.js';
import { keyRoutes } from './routes/keys.js';
import { playgroundRoutes } from './routes/playground.js';
import { previewRoutes } from './routes/preview.js';
import { projectRoutes } from './routes/projects.js';
import { requestRoutes } from './routes/requests.js';
import { sessionRoutes } from './routes/sessions.js';
import { usageRoutes } from './routes/usage.js';
import { proxyExitRoutes } from './routes/proxy-exits.js';
import { workspaceRoutes } from './routes/workspaces.js';

export interface MountedRouter {
  path: string;
  router: Router;
}

export interface DashboardDeps {
  db: Db;
  /** The gateway's credit ledger (its holds kept in memory count in the usage figures). */
  ledger: Ledger;
  config: Config;
  logger: Logger;
  box: SecretBox;
  /** Base URL of the gateway's /v1 API (batch controls go through it). */
  apiUrl: string;
  /** Built front end (index.html, app.js, app.css); default dist/dashboard/public. */
  assetsDir?: string;
  /** Extra routers mounted on the dashboard's origin, e.g. `{ path: '/api-reference', router }`. */
  routers?: MountedRouter[];
}

export function defaultAssetsDir(): string {
  return join(packageRoot() ?? process.cwd(), 'dist', 'dashboard', 'public');
}

/** The dashboard's Express app: JSON under /api, the built front end at /, both on one origin. */
export function createDashboardApp(
  context: DashboardContext,
  options: { assetsDir: string; routers: MountedRouter[]; apiUrl: () => string },
): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', context.config.DASHBOARD_TRUST_PROXY.split(',').map((peer) => peer.trim()));
  app.use(securityHeaders);
  // A batch pasted or uploaded in the browser is larger than any other dashboard body.
  app.post('/api/orgs/:orgId/projects/:projectId/batch', express.json({ limit: BATCH_SUBMIT_BODY_LIMIT }));
  app.use('/api', express.json({ limit: '64kb' }));
  app.use(accountRoutes(context));
  const { top, org } = workspaceRoutes(context);
  const signedIn = [requireUser(context), checkCsrf];
  const orgRouters = [org, projectRoutes(context), keyRoutes(context), usageRoutes(context), requestRoutes(context), batchRoutes(context), sessionRoutes(context), proxyExitRoutes(context)];
  orgRouters.push(playgroundRoutes(context, options.apiUrl), batchSubmitRoutes(context), crawlRoutes(context));
  app.use('/api/orgs/:orgId', ...signedIn, loadMembership(context), ...orgRouters);
  app.use('/api', ...signedIn, top);
  app.use('/api', (req) => {
    throw new ServiceError('ERR::REQUEST::NOT_FOUND', `No dashboard route ${req.method} ${req.path}`);
  });
  app.use(previewRoutes(context));
  app.use(API_REFERENCE_PATH, apiReferenceRoutes(options.apiUrl));
  for (const mounted of options.routers) app.use(mounted.path, mounted.router);
  app.use('/assets', express.static(options.assetsDir, { index: false, fallthrough: false }));
  app.get('/', (_req, res) => {
    const index = join(options.assetsDir, 'index.html');
    if (!existsSync(index)) {
      res.status(503).type('text/plain').send('The dashboard front end is not built: run `make build` (or scripts/setup.sh).\n');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const serviceError = toServiceError(error);
    if (serviceError.code === 'ERR::INTERNAL::ERROR') context.logger.error({ err: serviceError.cause ?? error, path: req.path }, 'dashboard error');
    if (serviceError.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(serviceError.retryAfterSeconds));
    // The dashboard's problems link to the gateway's own reference (or DOCS_URL), as the API's do.
    const body = problemBody(serviceError, { docsUrl: context.config.DOCS_URL ?? `${options.apiUrl()}${OWN_DOCS_PATH}`, instance: req.path });
    res.status(body.status).type('application/problem+json').send(JSON.stringify(body));
  });
  return app;
}

function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  );
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  next();
}

export interface RunningDashboard {
  server: Server;
  url: string;
  context: DashboardContext;
  stop(): Promise<void>;
}

/**
 * Listens on DASHBOARD_PORT (0: any free port) at HOST. With `onMoved`, a taken port moves to the
 * next free one like the metrics port (lib/movable-port.ts), so two gateways on one host both start.
 */
export async function startDashboard(deps: DashboardDeps, port: number, onMoved?: PortMoved): Promise<RunningDashboard> {
  let url = '';
  const context: DashboardContext = {
    db: deps.db,
    ledger: deps.ledger,
    config: deps.config,
    logger: deps.logger,
    box: deps.box,
    api: new ApiClient(deps.db, () => deps.apiUrl),
    publicUrl: () => url,
  };
  const app = createDashboardApp(context, { assetsDir: deps.assetsDir ?? defaultAssetsDir(), routers: deps.routers ?? [], apiUrl: () => deps.apiUrl });
  const server = createLimitedServer(app, dashboardServerLimits(deps.config));
  const bound = await listenMovable(server, deps.config.HOST, port, onMoved);
  url = `http://${deps.config.HOST.includes(':') ? `[${deps.config.HOST}]` : deps.config.HOST}:${bound}`;
  return {
    server,
    url,
    context,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
