import type { Router, Response } from 'express';
import { newId } from '../../lib/ids.js';
import {
  assertActive,
  createSession,
  deleteSession,
  findSession,
  listSessions,
  notFound,
  purgeExpiredContexts,
  releaseSession,
} from '../../lib/store/sessions/index.js';
import type { GatewayContext } from '../context.js';
import { principalOf } from '../middleware/auth.js';
import { jsonBody } from '../middleware/json-body.js';
import { rejectQueryParameters } from '../query-parameters.js';
import { deploymentFor } from '../scrape/deployment.js';
import { planSession } from '../sessions/create-body.js';
import { assertSessionExit } from '../sessions/session-exit.js';
import { rejectBody } from '../sessions/no-body.js';
import { contextBody, sessionBody } from '../sessions/present.js';
import { cursorAfter, parseForce, parseSessionList, sessionIdFrom } from '../sessions/session-query.js';
import { RouteTable } from './declare.js';

type Query = Record<string, unknown>;

/** Every /v1/sessions route (scope `sessions`); decisions in docs/sessions.md. */
export function sessionRoutes(context: GatewayContext): Router {
  const routes = new RouteTable();
  const { db } = context;

  routes.declare('createSession', jsonBody({ required: false }), async (req, res) => {
    rejectQueryParameters(req);
    const principal = principalOf(res);
    const now = new Date();
    const plan = planSession(
      res.locals.body,
      { deployed: deploymentFor(context, principal).deployed, maxTtlSeconds: principal.organization.max_session_ttl_seconds },
      Math.floor(now.getTime() / 1000),
    );
    await assertSessionExit(context.exitPool, plan.proxy);
    await purgeExpiredContexts(db, now);
    const id = newId();
    const session = await createSession(
      db,
      {
        id,
        organizationId: principal.organization.id,
        projectId: principal.project.id,
        engine: plan.engine,
        stickyKey: plan.stickyKey ?? id.toLowerCase(),
        proxy: plan.proxy,
        ttlSeconds: plan.ttlSeconds,
        maxTtlSeconds: principal.organization.max_session_ttl_seconds,
        context: plan.context,
        fingerprint: plan.fingerprint,
        domainScores: plan.domainScores,
      },
      now,
    );
    noStore(res).status(201).json(sessionBody(session, now, plan.warnings));
  });
  routes.declare('listSessions', async (req, res) => {
    const principal = principalOf(res);
    const query = parseSessionList(req.query as Query);
    const now = new Date();
    const page = await listSessions(
      db,
      { organizationId: principal.organization.id, projectId: principal.project.id, ...query },
      now,
    );
    const last = page.sessions.at(-1);
    noStore(res).json({
      sessions: page.sessions.map((session) => sessionBody(session, now)),
      ...(page.hasMore && last ? { next_cursor: cursorAfter(last.id) } : {}),
    });
  });

  routes.declare('getSession', async (req, res) => {
    rejectQueryParameters(req);
    const session = await findSession(db, sessionIdFrom(req.params.sessionId), principalOf(res).organization.id);
    if (!session) throw notFound(req.params.sessionId);
    noStore(res).json(sessionBody(session));
  });
  routes.declare('deleteSession', rejectBody('DELETE /v1/sessions/{id}'), async (req, res) => {
    const force = parseForce(req.query as Query);
    await deleteSession(db, sessionIdFrom(req.params.sessionId), principalOf(res).organization.id, force);
    noStore(res).status(204).end();
  });

  routes.declare('getSessionContext', async (req, res) => {
    rejectQueryParameters(req);
    const session = await findSession(db, sessionIdFrom(req.params.sessionId), principalOf(res).organization.id);
    if (!session) throw notFound(req.params.sessionId);
    assertActive(session);
    const body = contextBody(session);
    res.setHeader('Cache-Control', 'no-store, private');
    res.json(body);
  });

  routes.declare('releaseSession', rejectBody('POST /v1/sessions/{id}/release'), async (req, res) => {
    const force = parseForce(req.query as Query);
    const now = new Date();
    const session = await releaseSession(db, sessionIdFrom(req.params.sessionId), principalOf(res).organization.id, force, now);
    noStore(res).json(sessionBody(session, now));
  });

  return routes.router({ scopeChecked: 'every-method' });
}

function noStore(res: Response): Response {
  return res.setHeader('Cache-Control', 'no-store');
}
