import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { Router, type Response } from 'express';
import { z } from 'zod';
import { getJob, JOB_STATUSES, type JobRow } from '../../lib/store/batch/jobs.js';
import { rethrown } from '../api-client.js';
import type { DashboardContext } from '../context.js';
import { notFound, parseInput, projectOfMember } from '../org-access.js';

const ListQuery = z.strictObject({ status: z.enum(JOB_STATUSES).optional(), cursor: z.string().max(200).optional() });
const ACTIONS = ['cancel', 'retry', 'close'] as const;
/** Bound on the pages one download passes on (each page is the API's largest). */
const MAX_RESULT_PAGES = 1000;
const RESULT_PAGE_LIMIT = 1000;

/**
 * Batch jobs of one project. "Download results" passes the API's result pages on as they arrive (one
 * page in flight at most), never a whole job in memory. Reads and controls go through the gateway's /v1/batch routes with the
 * dashboard's internal key (dashboard/api-client.ts): the job rules (holds, retry, cancel) live in
 * the gateway alone, so the dashboard never re-implements them.
 */
export function batchRoutes(context: DashboardContext): Router {
  const router = Router({ mergeParams: true });
  const { db, api } = context;

  const projectOf = (res: Response, projectId: string) => projectOfMember(db, res, projectId);
  const jobOf = async (res: Response, projectId: string, jobId: string): Promise<JobRow> => {
    await projectOf(res, projectId);
    const job = await getJob(db, jobId, projectId);
    if (!job) throw notFound('batch job', jobId);
    return job;
  };

  router.get('/projects/:projectId/batch', async (req, res) => {
    const project = await projectOf(res, String(req.params.projectId));
    const query = parseInput(ListQuery, req.query);
    const search = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined));
    // Crawls are batch jobs: the API's `kind` marks them, and the page links their row to the crawl page.
    const list = await api.json(project.id, 'live', 'GET', `/v1/batch${search.size > 0 ? `?${search}` : ''}`);
    res.setHeader('Cache-Control', 'no-store');
    res.json(list);
  });

  router.get('/projects/:projectId/batch/:jobId', async (req, res) => {
    const job = await jobOf(res, String(req.params.projectId), String(req.params.jobId));
    res.setHeader('Cache-Control', 'no-store');
    res.json({ ...(await api.json(job.project_id, job.environment, 'GET', `/v1/batch/${job.id}`) as object), environment: job.environment });
  });

  for (const action of ACTIONS) {
    router.post(`/projects/:projectId/batch/:jobId/${action}`, async (req, res) => {
      const job = await jobOf(res, String(req.params.projectId), String(req.params.jobId));
      res.json(await api.json(job.project_id, job.environment, 'POST', `/v1/batch/${job.id}/${action}`));
    });
  }

  router.get('/projects/:projectId/batch/:jobId/results', async (req, res) => {
    const job = await jobOf(res, String(req.params.projectId), String(req.params.jobId));
    const stop = new AbortController();
    res.once('close', () => stop.abort());
    const page = (cursor: string | null) =>
      api.open(job.project_id, job.environment, 'GET', `/v1/batch/${job.id}/results?limit=${RESULT_PAGE_LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, stop.signal);
    let answer = await page(null);
    // Before the first byte a failure is still a problem answer; after it, the download is cut short.
    if (answer.status >= 400) throw rethrown({ status: answer.status, headers: answer.headers, body: await answer.text() });
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Disposition', `attachment; filename="batch-${job.id}-results.ndjson"`);
    res.type('application/x-ndjson');
    try {
      for (let pages = 1; ; pages += 1) {
        const cursor = answer.headers.get('x-next-cursor');
        await pipeline(Readable.fromWeb(answer.body as NodeReadableStream<Uint8Array>), res, { end: false });
        if (!cursor || pages >= MAX_RESULT_PAGES) break;
        answer = await page(cursor);
        if (answer.status >= 400) throw rethrown({ status: answer.status, headers: answer.headers, body: await answer.text() });
      }
      res.end();
    } catch (error) {
      // The file is incomplete: ending it normally would pass a partial download off as whole.
      if (!stop.signal.aborted) context.logger.warn({ err: error, job_id: job.id }, 'batch results download cut short');
      res.destroy();
    }
  });
  return router;
}
