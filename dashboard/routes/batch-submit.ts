import { Router, type Response } from 'express';
import { z } from 'zod';
import { KEY_ENVIRONMENTS } from '../../lib/apikeys.js';
import { getJob } from '../../lib/store/batch/jobs.js';
import { rethrown } from '../api-client.js';
import type { DashboardContext } from '../context.js';
import { notFound, parseInput, projectOfMember } from '../org-access.js';

/** The API's per-call bound (SPEC.md): more goes through appends, which the CLI does for a file. */
export const DASHBOARD_BATCH_MAX_ITEMS = 10_000;
/** Body bound of a submission from the browser (10,000 URLs of up to 8 KiB would not fit; the usual do). */
export const BATCH_SUBMIT_BODY_LIMIT = '8mb';
const ITEMS_PAGE = 100;

const Submit = z.strictObject({
  environment: z.enum(KEY_ENVIRONMENTS),
  name: z.string().trim().max(200).optional(),
  /** Bare URLs, or item objects (`{url, ...overrides}`), one per line of what was pasted or uploaded. */
  urls: z.array(z.string()).min(1).max(DASHBOARD_BATCH_MAX_ITEMS).optional(),
  items: z.array(z.record(z.string(), z.unknown())).min(1).max(DASHBOARD_BATCH_MAX_ITEMS).optional(),
  /** Job-wide scrape parameters, validated by the API. */
  params: z.record(z.string(), z.unknown()).default({}),
});
const ItemsQuery = z.strictObject({ cursor: z.string().max(200).optional(), status: z.enum(['succeeded', 'failed', 'cancelled', 'skipped']).optional() });

/**
 * Batches started in the browser and a job's item table. Both go through the gateway's /v1/batch
 * (dashboard/api-client.ts), so validation, holds and the per-call bound are the API's own.
 */
export function batchSubmitRoutes(context: DashboardContext): Router {
  const router = Router({ mergeParams: true });
  const { db, api } = context;
  const projectOf = (res: Response, projectId: string) => projectOfMember(db, res, projectId);

  router.post('/projects/:projectId/batch', async (req, res) => {
    const project = await projectOf(res, String(req.params.projectId));
    const body = parseInput(Submit, req.body);
    const submission = { ...body.params, ...(body.name ? { name: body.name } : {}), ...(body.urls ? { urls: body.urls } : {}), ...(body.items ? { items: body.items } : {}) };
    const job = (await api.json(project.id, body.environment, 'POST', '/v1/batch', submission)) as object;
    res.status(202).json({ ...job, environment: body.environment });
  });

  router.get('/projects/:projectId/batch/:jobId/items', async (req, res) => {
    await projectOf(res, String(req.params.projectId));
    const job = await getJob(db, String(req.params.jobId), String(req.params.projectId));
    if (!job) throw notFound('batch job', String(req.params.jobId));
    const query = parseInput(ItemsQuery, req.query);
    const search = new URLSearchParams({ limit: String(ITEMS_PAGE) });
    if (query.cursor) search.set('cursor', query.cursor);
    if (query.status) search.set('status', query.status);
    const answer = await api.call(job.project_id, job.environment, 'GET', `/v1/batch/${job.id}/results?${search}`);
    if (answer.status >= 400) throw rethrown(answer);
    // The table shows each item's outcome (a crawl's page with its depth and parent_url, as the API's
    // line has them); the pages themselves are in "Download results".
    const items = answer.body
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const { result: _result, ...item } = JSON.parse(line) as Record<string, unknown>;
        return item;
      });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ items, next_cursor: answer.headers.get('x-next-cursor'), limit: ITEMS_PAGE });
  });
  return router;
}
