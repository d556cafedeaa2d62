import { Router } from 'express';
import { z } from 'zod';
import { getRequestLog, listRequestLog } from '../../lib/store/request-log.js';
import { findOrganizationKey } from '../../lib/store/dashboard/keys.js';
import { findProject } from '../../lib/store/dashboard/projects.js';
import { REQUEST_STATUSES } from '../../lib/store/request-log-entry.js';
import type { DashboardContext } from '../context.js';
import { membershipOf, notFound, parseInput } from '../org-access.js';

const Query = z.strictObject({
  project_id: z.string().min(1).max(64).optional(),
  status: z.enum(REQUEST_STATUSES).optional(),
  errors_only: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  before: z.iso.datetime({ offset: true }).transform((v) => new Date(v)).optional(),
  before_id: z.string().min(1).max(64).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  url: z.string().trim().max(2048).optional(),
  /** `scrapes`: leave out successful calls that scraped nothing (a batch job polled every second...). */
  show: z.enum(['scrapes', 'all']).default('all'),
});

/** The request log of the member's organization (every project, or one), newest first, within retention. */
export function requestRoutes(context: DashboardContext): Router {
  const router = Router({ mergeParams: true });
  const retainedSince = () => new Date(Date.now() - context.config.REQUEST_LOG_RETENTION_HOURS * 3_600_000);

  router.get('/requests', async (req, res) => {
    const { organization } = membershipOf(res);
    const query = parseInput(Query, req.query);
    const page = await listRequestLog(context.db, {
      organizationId: organization.id,
      projectIds: query.project_id ? [query.project_id] : 'all',
      status: query.status,
      onlyErrors: query.errors_only,
      before: query.before ? { at: query.before, id: query.before_id ?? null } : undefined,
      limit: query.limit,
      urlContains: query.url || undefined,
      hideSuccessfulReads: query.show === 'scrapes',
      retainedSince: retainedSince(),
    });
    const last = page.entries.at(-1);
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      data: page.entries,
      has_more: page.hasMore,
      ...(page.hasMore && last ? { next: { before: last.created_at, before_id: last.id } } : {}),
    });
  });

  router.get('/requests/:requestId', async (req, res) => {
    const { organization } = membershipOf(res);
    const found = await getRequestLog(context.db, String(req.params.requestId), organization.id);
    if (!found || new Date(found.entry.created_at) < retainedSince()) throw notFound('request log record', String(req.params.requestId));
    const keyId = typeof found.entry.features.key_id === 'string' ? found.entry.features.key_id : null;
    const [project, key] = await Promise.all([
      findProject(context.db, organization.id, found.entry.project_id),
      keyId ? findOrganizationKey(context.db, organization.id, keyId) : null,
    ]);
    res.setHeader('Cache-Control', 'no-store');
    // Names beside the ids, so the page says which project and which key made the call.
    res.json({
      ...found.entry,
      project_name: project?.name ?? null,
      key: key ? { id: key.id, name: key.name, display_prefix: key.display_prefix, environment: key.environment } : null,
    });
  });
  return router;
}
