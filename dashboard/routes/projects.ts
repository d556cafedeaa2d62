import { Router } from 'express';
import { z } from 'zod';
import { createProject } from '../../lib/store/accounts.js';
import { findProject, listProjects, updateProject } from '../../lib/store/dashboard/projects.js';
import { parseProjectDefaults } from '../../lib/scrape/project-defaults.js';
import type { DashboardContext } from '../context.js';
import { membershipOf, notFound, parseInput, requireRole } from '../org-access.js';

const Create = z.strictObject({ name: z.string().trim().min(1).max(100) });
const Update = z.strictObject({ name: z.string().trim().min(1).max(100).optional(), defaults: z.unknown().optional() });

/** Projects and their stored scrape defaults, checked by the API's own rules (lib/scrape/project-defaults.ts). */
export function projectRoutes(context: DashboardContext): Router {
  const router = Router({ mergeParams: true });
  const { db } = context;

  router.get('/projects', async (_req, res) => {
    res.json({ projects: await listProjects(db, membershipOf(res).organization.id) });
  });

  router.post('/projects', async (req, res) => {
    const { organization } = requireRole(res, 'admin');
    const body = parseInput(Create, req.body);
    res.status(201).json(await createProject(db, organization.id, body.name));
  });

  router.get('/projects/:projectId', async (req, res) => {
    const project = await findProject(db, membershipOf(res).organization.id, String(req.params.projectId));
    if (!project) throw notFound('project', String(req.params.projectId));
    res.json(project);
  });

  router.patch('/projects/:projectId', async (req, res) => {
    const { organization } = requireRole(res, 'admin');
    const body = parseInput(Update, req.body);
    const defaults = body.defaults === undefined ? undefined : (parseProjectDefaults(body.defaults) as Record<string, unknown>);
    const project = await updateProject(db, organization.id, String(req.params.projectId), { name: body.name, defaults });
    if (!project) throw notFound('project', String(req.params.projectId));
    res.json(project);
  });
  return router;
}
