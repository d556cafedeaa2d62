import type { Request, Response, Router } from 'express';
import { ServiceError } from '../../lib/errors/index.js';
import { MICRO_PER_CREDIT } from '../../lib/billing/prices.js';
import { getItem } from '../../lib/store/batch/items.js';
import { listJobs, type JobRow } from '../../lib/store/batch/jobs.js';
import type { GatewayContext } from '../context.js';
import { principalOf } from '../middleware/auth.js';
import { jsonBody } from '../middleware/json-body.js';
import { jobObjectOf, jobObjects } from '../batch/job-view.js';
import { checkNoBody, encodeListCursor, jobIdFrom, parseJobListQuery, parseResultsQuery } from '../batch/batch-query.js';
import { noQueryParameters, rejectQueryParameters } from '../query-parameters.js';
import { resultsPage } from '../batch/results.js';
import { appendItems, cancelJob, closeJob, createJob, notFound, requireJob, retryJob } from '../batch/service.js';
import { RouteTable } from './declare.js';

/** Every /v1/batch route (scope `batch`), docs/batch.md. */
export function batchRoutes(context: GatewayContext): Router {
  const routes = new RouteTable();
  const loadJob = async (req: Request, res: Response): Promise<JobRow> => {
    const id = jobIdFrom(String(req.params.batchID));
    if (id === null) throw notFound(String(req.params.batchID));
    return requireJob(context, principalOf(res), id);
  };

  routes.declare('createBatch', noQueryParameters, jsonBody({ required: true }), async (_req, res) => {
    const { job, warnings } = await createJob(context, principalOf(res), res.locals.body);
    res.setHeader('X-Credits-Charged', '0');
    res.status(202).json(await jobObjectOf(context.db, job, warnings));
  });
  routes.declare('listBatches', async (req, res) => {
    const query = parseJobListQuery(req.query as Record<string, unknown>);
    const page = await listJobs(context.db, { projectId: principalOf(res).project.id, ...query });
    const last = page.jobs.at(-1);
    noStore(res).json({
      batches: jobObjects(page.jobs),
      ...(page.hasMore && last ? { next_cursor: encodeListCursor(last.submitted_at, last.id) } : {}),
    });
  });

  routes.declare('getBatch', async (req, res) => {
    rejectQueryParameters(req);
    // The row was just read whole: its totals are current, so no second read.
    noStore(res).json(jobObjects([await loadJob(req, res)])[0]);
  });

  routes.declare('appendBatchItems', noQueryParameters, jsonBody({ required: true }), async (req, res) => {
    const job = await loadJob(req, res);
    const appended = await appendItems(context, principalOf(res), job.id, res.locals.body);
    res.setHeader('X-Credits-Charged', '0');
    res.setHeader('X-Request-Cost', String(appended.costMicro / MICRO_PER_CREDIT));
    res.status(200).json({ job: await jobObjectOf(context.db, appended.job), items_added: appended.added, items_dispatched: appended.added });
  });

  const action = (path: string, status: number, run: (job: JobRow, res: Response) => Promise<Record<string, unknown>>) =>
    routes.declare(`${path}Batch`, jsonBody({ required: false }), async (req, res) => {
      rejectQueryParameters(req);
      checkNoBody(res.locals.body);
      const body = await run(await loadJob(req, res), res);
      res.setHeader('X-Credits-Charged', '0');
      noStore(res).status(status).json(body);
    });

  action('close', 200, async (job, res) => jobObjectOf(context.db, await closeJob(context, principalOf(res), job.id)));
  action('cancel', 202, async (job, res) => jobObjectOf(context.db, await cancelJob(context, principalOf(res), job.id)));
  action('retry', 200, async (job, res) => {
    const retried = await retryJob(context, principalOf(res), job.id);
    return { job: await jobObjectOf(context.db, retried.job), items_reset: retried.reset, items_dispatched: retried.reset };
  });

  routes.declare('batchResults', async (req, res) => {
    const query = parseResultsQuery(req.query as Record<string, unknown>);
    const job = await loadJob(req, res);
    checkRetention(job);
    const page = await resultsPage(context.db, job, query);
    res.setHeader('Cache-Control', 'no-store');
    if (page.nextCursor) {
      const next = new URLSearchParams({ cursor: page.nextCursor, ...query.sent });
      res.setHeader('X-Next-Cursor', page.nextCursor);
      res.setHeader('Link', `</v1/batch/${job.id}/results?${next.toString()}>; rel="next"`);
    }
    res.status(200).type('application/x-ndjson').send(page.ndjson);
  });

  routes.declare('batchItemContent', async (req, res) => {
    rejectQueryParameters(req);
    const job = await loadJob(req, res);
    const seq = /^\d{1,15}$/.test(String(req.params.seq)) ? Number(req.params.seq) : null;
    const item = seq === null ? null : await getItem(context.db, job.id, seq);
    if (!item) throw new ServiceError('ERR::REQUEST::NOT_FOUND', `No item ${String(req.params.seq)} in batch job ${job.id}`);
    checkRetention(job);
    if (item.status !== 'succeeded') {
      throw new ServiceError('ERR::REQUEST::NOT_FOUND', `Item ${seq} has no content: it is ${item.status}`);
    }
    if (item.body === null) throw new ServiceError('ERR::REQUEST::BEYOND_RETENTION', `The content of item ${seq} was purged`);
    res.setHeader('Cache-Control', 'private, max-age=300');
    if (item.http_status !== null) res.setHeader('X-Target-Status', String(item.http_status));
    res.status(200).type(item.content_type ?? 'application/octet-stream').send(item.body);
  });

  return routes.router();
}

function checkRetention(job: JobRow): void {
  if (job.results_expire_at.getTime() <= Date.now()) {
    throw new ServiceError('ERR::REQUEST::BEYOND_RETENTION', `The results of batch job ${job.id} expired at ${job.results_expire_at.toISOString()}`);
  }
}

function noStore(res: Response): Response {
  return res.setHeader('Cache-Control', 'no-store');
}
