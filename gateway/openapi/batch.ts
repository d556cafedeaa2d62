import { FINISHED_ITEM_STATUSES } from '../../lib/store/batch/items.js';
import { JOB_KINDS, JOB_STATUSES } from '../../lib/store/batch/jobs.js';
import { JOB_LIST_PARAMETERS, RESULTS_PARAMETERS } from '../batch/batch-query.js';
import { ItemSchema, RunControlsSchema } from '../batch/submission.js';
import { jsonContent, jsonSchemaOf, NO_STORE, ref } from './components.js';
import { PARAMETER_ERRORS, SCRAPE_PARAMETERS_SCHEMA } from './scrape.js';
import type { JsonSchema, OperationSpec, ParameterSpec } from './types.js';

const scrapeFields = SCRAPE_PARAMETERS_SCHEMA.properties as Record<string, JsonSchema>;
const { url: _url, ...jobScrapeFields } = scrapeFields;
const controls = jsonSchemaOf(RunControlsSchema);
const item = jsonSchemaOf(ItemSchema);

/** A batch body: run controls plus job-level scrape parameters (every one but `url`), strictly. */
export const BATCH_SUBMISSION_SCHEMA: JsonSchema = {
  type: 'object',
  description:
    'Run controls and job-level scrape parameters (docs/batch.md). Send `urls` or `items`. ' +
    'Each item is `{url, external_id?}` plus per-item overrides of any scrape parameter.',
  properties: {
    ...(controls.properties as Record<string, JsonSchema>),
    urls: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] },
    items: { anyOf: [{ type: 'array', items: { ...item, properties: { ...(item.properties as Record<string, JsonSchema>), ...jobScrapeFields } } }, { type: 'null' }] },
    ...jobScrapeFields,
  },
  additionalProperties: false,
};

/** The batch job object (gateway/batch/job-view.ts); optional members only when they have a value. */
export const BATCH_JOB_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'project_id', 'kind', 'status', 'status_url', 'results_url', 'params', 'total_items', 'concurrency', 'priority', 'max_attempts', 'estimated_credits', 'estimated_credits_micro', 'progress', 'submitted_at', 'results_expire_at'],
  properties: {
    id: { type: 'string' },
    project_id: { type: 'string' },
    kind: { type: 'string', enum: [...JOB_KINDS], description: '`crawl` for a job created by POST /v1/crawl (docs/crawl.md), `batch` for one created by POST /v1/batch.' },
    name: { type: 'string' },
    status: { type: 'string', enum: [...JOB_STATUSES] },
    open: { type: 'boolean' },
    status_url: { type: 'string' },
    results_url: { type: 'string' },
    params: { type: 'object', description: 'The job-level scrape parameters as sent, plus credit_budget_micro; the proxy password and credential-bearing custom_headers values read "[redacted]" (docs/batch.md, "Secrets in params").' },
    total_items: { type: 'integer' },
    concurrency: { type: 'integer' },
    priority: { type: 'integer' },
    max_attempts: { type: 'integer' },
    failure_threshold: { type: 'integer' },
    estimated_credits: { type: 'integer' },
    estimated_credits_micro: { type: 'integer' },
    progress: { type: 'object' },
    submitted_at: { type: 'string', format: 'date-time' },
    started_at: { type: 'string', format: 'date-time' },
    finished_at: { type: 'string', format: 'date-time' },
    cancel_requested_at: { type: 'string', format: 'date-time' },
    results_expire_at: { type: 'string', format: 'date-time' },
    error_code: { type: 'string' },
    error_message: { type: 'string' },
    warnings: { type: 'array', items: { type: 'string' } },
  },
};

/** One line of GET /v1/batch/{batchID}/results (gateway/batch/results.ts); optional members only when they have a value. */
export const BATCH_RESULT_LINE_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'One line of `GET /v1/batch/{batchID}/results` (application/x-ndjson), members in this order (docs/batch.md "Results").',
  required: ['seq', 'url', 'status', 'attempts', 'credits_micro', 'bytes', 'duration_ms'],
  properties: {
    seq: { type: 'integer', description: '0-based position in submission order (a crawl: in the order pages were queued).' },
    external_id: { type: 'string' },
    url: { type: 'string', description: 'Target as submitted (a crawl: the page, normalised).' },
    depth: { type: 'integer', minimum: 0, description: 'Only on the lines of a crawl (`kind` crawl): links followed from the seed to this page; the seed is 0, sitemap pages 1 (docs/crawl.md "Result lines").' },
    parent_url: {
      type: ['string', 'null'],
      description: 'Only on the lines of a crawl: the `url` of the page this one was first found on, so another line of the same results; null for the seed and sitemap pages.',
    },
    status: { type: 'string', enum: [...FINISHED_ITEM_STATUSES] },
    attempts: { type: 'integer' },
    http_status: { type: 'integer' },
    request_id: { type: 'string' },
    credits_micro: { type: 'integer' },
    bytes: { type: 'integer' },
    duration_ms: { type: 'integer' },
    result: {
      type: 'object',
      description: 'Only once the job is terminal, on `succeeded` lines: `{content_type, bytes, content}`, or with `truncated`, `omitted` or `unavailable` (docs/batch.md "Results").',
      properties: {
        content_type: { type: 'string' },
        bytes: { type: 'integer' },
        content_encoding: { type: 'string', enum: ['base64'] },
        truncated: { type: 'boolean' },
        omitted: { type: 'boolean' },
        unavailable: { type: 'boolean' },
        content: { type: 'string' },
      },
    },
    error: { type: 'object', required: ['code', 'retryable'], properties: { code: { type: 'string' }, retryable: { type: 'boolean' }, detail: { type: 'string' } } },
    finished_at: { type: 'string', format: 'date-time' },
  },
};

const batchId: ParameterSpec = { name: 'batchID', in: 'path', required: true, description: 'Batch job id (ULID, or a UUID form).', schema: { type: 'string' } };
const page = (max: number, fallback: number, statuses: readonly string[]) =>
  ({
    limit: { name: 'limit', in: 'query', description: `1 to ${max} (default ${fallback}).`, schema: { type: 'integer', minimum: 1, maximum: max } },
    status: { name: 'status', in: 'query', description: 'Only this status.', schema: { type: 'string', enum: [...statuses] } },
    cursor: { name: 'cursor', in: 'query', description: 'The cursor of the previous page.', schema: { type: 'string' } },
  }) satisfies Record<string, ParameterSpec>;
const LIST_QUERY: Record<(typeof JOB_LIST_PARAMETERS)[number], ParameterSpec> = page(200, 50, JOB_STATUSES);
const RESULTS_QUERY: Record<(typeof RESULTS_PARAMETERS)[number], ParameterSpec> = page(5000, 500, FINISHED_ITEM_STATUSES);

const action = (path: string, operationId: string, summary: string, status: number, schema: JsonSchema): OperationSpec => ({
  method: 'post',
  path: `/v1/batch/{batchID}/${path}`,
  operationId,
  tag: 'Batch',
  summary: `${summary} (no body, or \`{}\`)`,
  access: 'batch',
  parameters: [batchId],
  responses: [{ status, description: 'The job after the change.', headers: NO_STORE, content: jsonContent(schema) }],
  errors: ['ERR::REQUEST::INVALID_PARAMETER', 'ERR::REQUEST::NOT_FOUND', 'ERR::REQUEST::CONFLICT'],
});
const retried = { type: 'object', properties: { job: ref('BatchJob'), items_reset: { type: 'integer' }, items_dispatched: { type: 'integer' } } };

export const batchOperations: OperationSpec[] = [
  {
    method: 'post',
    path: '/v1/batch',
    operationId: 'createBatch',
    tag: 'Batch',
    summary: 'Create a batch job',
    description: "Every item is validated and priced, and its dearest cost held, before anything is created.",
    access: 'batch',
    requestBody: { required: true, description: 'Run controls, job-level parameters and the items.', schema: ref('BatchSubmission'), example: { name: 'two pages', urls: ['https://example.com/', 'https://example.org/'], response_format: 'markdown' } },
    responses: [{ status: 202, description: 'The job, queued.', content: jsonContent(ref('BatchJob')) }],
    errors: PARAMETER_ERRORS,
  },
  {
    method: 'get',
    path: '/v1/batch',
    operationId: 'listBatches',
    tag: 'Batch',
    summary: "List the project's batch jobs, newest first",
    description: 'Crawls are batch jobs and are listed too: `kind` tells them apart.',
    access: 'batch',
    parameters: Object.values(LIST_QUERY),
    responses: [
      {
        status: 200,
        description: 'A page of jobs.',
        headers: NO_STORE,
        content: jsonContent({ type: 'object', required: ['batches'], properties: { batches: { type: 'array', items: ref('BatchJob') }, next_cursor: { type: 'string' } } }),
      },
    ],
    errors: ['ERR::REQUEST::INVALID_PARAMETER'],
  },
  {
    method: 'get',
    path: '/v1/batch/{batchID}',
    operationId: 'getBatch',
    tag: 'Batch',
    summary: 'Read a batch job and its progress',
    access: 'batch',
    parameters: [batchId],
    responses: [{ status: 200, description: 'The job.', headers: NO_STORE, content: jsonContent(ref('BatchJob')) }],
    errors: ['ERR::REQUEST::INVALID_PARAMETER', 'ERR::REQUEST::NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v1/batch/{batchID}/items',
    operationId: 'appendBatchItems',
    tag: 'Batch',
    summary: 'Add items to an open job',
    access: 'batch',
    parameters: [batchId],
    requestBody: {
      required: true,
      description: "`urls` or `items`; they run with the job's stored parameters plus their own overrides. Run controls are accepted and ignored.",
      schema: ref('BatchSubmission'),
      example: { urls: ['https://example.net/'] },
    },
    responses: [
      {
        status: 200,
        description: 'The job and how many items were added.',
        headers: ['X-Request-Cost'],
        content: jsonContent({ type: 'object', properties: { job: ref('BatchJob'), items_added: { type: 'integer' }, items_dispatched: { type: 'integer' } } }),
      },
    ],
    errors: [...PARAMETER_ERRORS, 'ERR::REQUEST::NOT_FOUND', 'ERR::REQUEST::CONFLICT'],
  },
  action('close', 'closeBatch', 'Close an open job: no more items', 200, ref('BatchJob')),
  action('cancel', 'cancelBatch', 'Cancel a job: queued items are cancelled and their holds released', 202, ref('BatchJob')),
  action('retry', 'retryBatch', 'Queue the failed items of a finished job again', 200, retried),
  {
    method: 'get',
    path: '/v1/batch/{batchID}/results',
    operationId: 'batchResults',
    tag: 'Batch',
    summary: 'Page through finished items as JSON Lines',
    access: 'batch',
    parameters: [batchId, ...Object.values(RESULTS_QUERY)],
    responses: [
      {
        status: 200,
        description: 'One JSON object per finished item, in item order: each a `BatchResultLine` (components/schemas/BatchResultLine).',
        headers: ['Cache-Control', 'X-Next-Cursor', 'Link'],
        content: { 'application/x-ndjson': { schema: { type: 'string' } } },
      },
    ],
    errors: ['ERR::REQUEST::INVALID_PARAMETER', 'ERR::REQUEST::NOT_FOUND', 'ERR::REQUEST::BEYOND_RETENTION'],
  },
  {
    method: 'get',
    path: '/v1/batch/{batchID}/tasks/{seq}/content',
    operationId: 'batchItemContent',
    tag: 'Batch',
    summary: "A succeeded item's document, as the target's content type",
    access: 'batch',
    parameters: [batchId, { name: 'seq', in: 'path', required: true, description: "The item's sequence number.", schema: { type: 'integer', minimum: 0 } }],
    responses: [
      {
        status: 200,
        description: 'The stored body.',
        headers: ['Cache-Control', 'X-Target-Status'],
        content: { '*/*': { schema: { type: 'string' } } },
      },
    ],
    errors: ['ERR::REQUEST::INVALID_PARAMETER', 'ERR::REQUEST::NOT_FOUND', 'ERR::REQUEST::BEYOND_RETENTION'],
  },
];
