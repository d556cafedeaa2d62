import { Router } from 'express';
import { z } from 'zod';
import { findProject } from '../../lib/store/dashboard/projects.js';
import { SESSION_STATUSES, findSession, listSessions, releaseSession, sessionStatus, type SessionRecord } from '../../lib/store/sessions/index.js';
import type { DashboardContext } from '../context.js';
import { membershipOf, notFound, parseInput } from '../org-access.js';

const Query = z.strictObject({
  status: z.enum(SESSION_STATUSES).optional(),
  before_id: z.string().min(1).max(64).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

/** Sessions of one project with their state; release (never forced: a session in use answers 409 BUSY). */
export function sessionRoutes(context: DashboardContext): Router {
  const router = Router({ mergeParams: true });
  const { db } = context;

  router.get('/projects/:projectId/sessions', async (req, res) => {
    const { organization } = membershipOf(res);
    const project = await findProject(db, organization.id, String(req.params.projectId));
    if (!project) throw notFound('project', String(req.params.projectId));
    const query = parseInput(Query, req.query);
    const now = new Date();
    const page = await listSessions(db, { organizationId: organization.id, projectId: project.id, status: query.status, beforeId: query.before_id, limit: query.limit }, now);
    const last = page.sessions.at(-1);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ sessions: page.sessions.map((s) => view(s, now)), ...(page.hasMore && last ? { next_before_id: last.id } : {}) });
  });

  router.post('/sessions/:sessionId/release', async (req, res) => {
    const { organization } = membershipOf(res);
    const id = String(req.params.sessionId);
    if (!(await findSession(db, id, organization.id))) throw notFound('session', id);
    const now = new Date();
    res.json(view(await releaseSession(db, id, organization.id, false, now), now));
  });
  return router;
}

function view(session: SessionRecord, now: Date) {
  return {
    id: session.id,
    project_id: session.project_id,
    engine: session.engine,
    status: sessionStatus(session, now),
    proxy: session.proxy,
    created_at: session.created_at,
    last_used_at: session.last_used_at,
    expires_at: session.expires_at,
    released_at: session.released_at,
  };
}
