import { Router } from 'express';
import { z } from 'zod';
import { ServiceError } from '../../lib/errors/index.js';
import { KEY_ENVIRONMENTS } from '../../lib/apikeys.js';
import { SCOPES, DEFAULT_SCOPES, createApiKey } from '../../lib/store/accounts.js';
import { countReveal, defaultKeyBinding, defaultKeyOf, findOrganizationKey, listOrganizationKeys, revokeOrganizationKey } from '../../lib/store/dashboard/keys.js';
import { findProject, listProjects } from '../../lib/store/dashboard/projects.js';
import { userOf } from '../auth/session.js';
import type { DashboardContext } from '../context.js';
import { createDefaultKey } from '../default-key.js';
import { membershipOf, notFound, parseInput, requireRole } from '../org-access.js';

/** The Default key and the reveal bound (docs/dashboard.md). */
export const REVEALS_PER_MINUTE = 10;

const Create = z.strictObject({
  project_id: z.string().min(1).max(64),
  name: z.string().trim().min(1).max(100),
  environment: z.enum(KEY_ENVIRONMENTS),
  scopes: z.array(z.enum(SCOPES)).min(1).default(DEFAULT_SCOPES),
  expires_at: z.iso.datetime({ offset: true }).transform((v) => new Date(v)).nullish(),
});

/** Keys: list (first 16 characters only), create (secret shown once), revoke, Default reveal and rotation. */
export function keyRoutes(context: DashboardContext): Router {
  const router = Router({ mergeParams: true });
  const { db } = context;

  router.get('/keys', async (_req, res) => {
    const organizationId = membershipOf(res).organization.id;
    const [keys, current] = await Promise.all([listOrganizationKeys(db, organizationId), defaultKeyOf(db, organizationId)]);
    res.json({ keys: keys.map((key) => ({ ...key, is_default: key.id === current?.key.id })) });
  });

  router.post('/keys', async (req, res) => {
    const { organization } = requireRole(res, 'admin');
    const body = parseInput(Create, req.body);
    if (body.expires_at && body.expires_at.getTime() <= Date.now()) {
      throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', 'expires_at: must be in the future');
    }
    if (!(await findProject(db, organization.id, body.project_id))) throw notFound('project', body.project_id);
    const { key, secret } = await createApiKey(db, {
      projectId: body.project_id,
      name: body.name,
      environment: body.environment,
      scopes: [...new Set(body.scopes)],
      expiresAt: body.expires_at ?? null,
    });
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json({ key, secret });
  });

  router.post('/keys/:keyId/revoke', async (req, res) => {
    const { organization } = requireRole(res, 'admin');
    const current = await defaultKeyOf(db, organization.id);
    if (current?.key.id === req.params.keyId) {
      throw new ServiceError('ERR::REQUEST::CONFLICT', 'The Default key is replaced, not revoked: use "Rotate Default"');
    }
    if (!(await revokeOrganizationKey(db, organization.id, String(req.params.keyId)))) throw notFound('key', String(req.params.keyId));
    res.json(await findOrganizationKey(db, organization.id, String(req.params.keyId)));
  });

  router.post('/default-key/reveal', async (_req, res) => {
    const { organization } = membershipOf(res);
    const current = await defaultKeyOf(db, organization.id);
    if (!current || current.key.revoked_at) throw new ServiceError('ERR::REQUEST::NOT_FOUND', 'This workspace has no live Default key: rotate it to create one');
    const waitSeconds = await db.transaction((tx) => countReveal(tx, userOf(res).id, REVEALS_PER_MINUTE));
    if (waitSeconds > 0) {
      throw new ServiceError('ERR::LIMIT::RATE_LIMITED', `The Default key may be revealed at most ${REVEALS_PER_MINUTE} times per minute; try again in ${waitSeconds} s`, {
        retryAfterSeconds: waitSeconds,
      });
    }
    const secret = context.box.open(current.sealed_secret, defaultKeyBinding(organization.id, current.key.id));
    if (secret === null) {
      throw new ServiceError('ERR::REQUEST::CONFLICT', 'The Default key was sealed under another sealing key (DASHBOARD_SECRET_KEY) or for another key, and cannot be shown: rotate it');
    }
    res.setHeader('Cache-Control', 'no-store');
    res.json({ key: current.key, secret });
  });

  router.post('/default-key/rotate', async (_req, res) => {
    const { organization } = requireRole(res, 'admin');
    const key = await db.transaction(async (tx) => {
      const current = await defaultKeyOf(tx, organization.id);
      const projectId = current?.key.project_id ?? (await listProjects(tx, organization.id))[0]?.id;
      if (!projectId) throw new ServiceError('ERR::REQUEST::CONFLICT', 'Create a project first');
      if (current) await revokeOrganizationKey(tx, organization.id, current.key.id);
      return createDefaultKey(context, tx, organization.id, projectId);
    });
    res.status(201).json({ key });
  });
  return router;
}
