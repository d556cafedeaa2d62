import { Router, type Response } from 'express';
import { z } from 'zod';
import { KEY_ENVIRONMENTS } from '../../lib/apikeys.js';
import { jobProgress } from '../../lib/batch/job-progress.js';
import { progressOf } from '../../lib/store/batch/items.js';
import { getJob } from '../../lib/store/batch/jobs.js';
import { listProjectCrawls, type CrawlListRow } from '../../lib/store/dashboard/crawls.js';
import type { DashboardContext } from '../context.js';
import { notFound, parseInput, projectOfMember } from '../org-access.js';

/** Crawls listed on the Crawls page; older ones are in the Batch jobs list (a crawl is a batch job). */
const CRAWL_LIST_LIMIT = 50;

const Start = z.strictObject({
  environment: z.enum(KEY_ENVIRONMENTS),
  /** The body of POST /v1/crawl, validated by the API (docs/crawl.md). */
  crawl: z.record(z.string(), z.unknown()),
});
const MapRun = z.strictObject({
  /** The body of POST /v1/map, validated by the API. */
  map: z.record(z.string(), z.unknown()),
});

/**
 * Crawls and maps from the browser (docs/dashboard.md "Crawls"). Every call goes to the gateway's
 * /v1/crawl and /v1/map with the dashboard's internal key (dashboard/api-client.ts), so the crawl rules,
 * holds and validation are the API's own; a crawl is a batch job, so its pages, cancel, retry and
 * results download are the batch routes (dashboard/routes/batch.ts, batch-submit.ts).
 */
export function crawlRoutes(context: DashboardContext): Router {
  const router = Router({ mergeParams: true });
  const { db, api } = context;
  const projectOf = (res: Response, projectId: string) => projectOfMember(db, res, projectId);

  router.get('/projects/:projectId/crawls', async (req, res) => {
    const project = await projectOf(res, String(req.params.projectId));
    const crawls = await listProjectCrawls(db, project.id, CRAWL_LIST_LIMIT);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ crawls: crawls.map(crawlSummary), limit: CRAWL_LIST_LIMIT });
  });

  router.post('/projects/:projectId/crawl', async (req, res) => {
    const project = await projectOf(res, String(req.params.projectId));
    const body = parseInput(Start, req.body);
    const crawl = (await api.json(project.id, body.environment, 'POST', '/v1/crawl', body.crawl)) as object;
    res.status(202).json({ ...crawl, environment: body.environment });
  });

  router.get('/projects/:projectId/crawl/:jobId', async (req, res) => {
    await projectOf(res, String(req.params.projectId));
    const job = await getJob(db, String(req.params.jobId), String(req.params.projectId));
    if (!job) throw notFound('crawl', String(req.params.jobId));
    res.setHeader('Cache-Control', 'no-store');
    res.json({ ...((await api.json(job.project_id, job.environment, 'GET', `/v1/crawl/${job.id}`)) as object), environment: job.environment });
  });

  router.post('/projects/:projectId/map', async (req, res) => {
    const project = await projectOf(res, String(req.params.projectId));
    const body = parseInput(MapRun, req.body);
    // A map costs no credits on either ledger; the live key's environment is as good as any.
    res.setHeader('Cache-Control', 'no-store');
    res.json(await api.json(project.id, 'live', 'POST', '/v1/map', body.map));
  });
  return router;
}

function crawlSummary(row: CrawlListRow): Record<string, unknown> {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name ?? undefined,
    url: row.seed_url,
    status: row.status,
    environment: row.environment,
    submitted_at: row.submitted_at.toISOString(),
    finished_at: row.finished_at?.toISOString(),
    progress: jobProgress(progressOf(row)),
  };
}
