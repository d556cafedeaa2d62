import type { JobProgress } from '../../lib/batch/job-progress.js';
import type { ApiClient } from '../client.js';
import { ApiError } from '../problem.js';
import type { BatchInput, BatchItem } from './input.js';

/** docs/api-reference.md "Limits": per call. */
export const MAX_ITEMS_PER_CALL = 10_000;
export const MAX_BODY_BYTES = 1_048_576;
/** Room left in each body for `{"items":[...]}`, commas and the open flag. */
const ENVELOPE_BYTES = 256;

export interface BatchJob {
  id: string;
  status: string;
  open?: boolean;
  total_items: number;
  progress: BatchProgress;
  warnings?: string[];
  /** A crawl's own figures (GET /v1/crawl/{id}); absent for a plain batch job. */
  crawl?: { discovered: number };
  [key: string]: unknown;
}

/** The job object's `progress`, as the gateway builds it (lib/batch/job-progress.ts). */
export type BatchProgress = JobProgress;

/**
 * Splits the items so each call stays within 10,000 items and 1 MiB of body (the first call also
 * carries the job-level fields, `firstCallBytes`).
 */
export function chunkItems(items: BatchItem[], plainUrls: boolean, options: { maxItems: number; firstCallBytes: number }): BatchItem[][] {
  const chunks: BatchItem[][] = [];
  let current: BatchItem[] = [];
  let bytes = options.firstCallBytes;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(plainUrls ? item.url : item)) + 1;
    if (size + ENVELOPE_BYTES > MAX_BODY_BYTES) throw new Error(`item ${item.url} alone is larger than a batch body may be`);
    if (current.length > 0 && (current.length >= options.maxItems || bytes + size + ENVELOPE_BYTES > MAX_BODY_BYTES)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function listBody(chunk: BatchItem[], plainUrls: boolean): Record<string, unknown> {
  return plainUrls ? { urls: chunk.map((item) => item.url) } : { items: chunk };
}

export interface SubmitOutcome {
  job: BatchJob;
  calls: number;
  warnings: string[];
}

/**
 * Creates the job. More than one chunk: created `open`, the rest appended, then closed. Creating and
 * appending are not retried after a dropped connection (no idempotency key: a resubmission would run
 * and hold credits twice). An append that fails closes the job so the accepted items still run.
 */
export async function submitBatch(
  client: ApiClient,
  input: BatchInput,
  jobFields: Record<string, unknown>,
  options: { maxItems: number; onChunk?: (submitted: number, total: number) => void; stopRequested?: () => boolean },
): Promise<SubmitOutcome> {
  const firstCallBytes = Buffer.byteLength(JSON.stringify(jobFields));
  const chunks = chunkItems(input.items, input.plainUrls, { maxItems: Math.min(options.maxItems, MAX_ITEMS_PER_CALL), firstCallBytes });
  const open = chunks.length > 1;
  let job = await client
    .json<BatchJob>('POST', '/v1/batch', {
      json: { ...jobFields, ...(open ? { open: true } : {}), ...listBody(chunks[0], input.plainUrls) },
      onDrop: 'never',
    })
    .catch((error: unknown) => {
      throw withItemLines(error, input, 0);
    });
  const warnings = [...(job.warnings ?? [])];
  let submitted = chunks[0].length;
  options.onChunk?.(submitted, input.items.length);
  for (const chunk of chunks.slice(1)) {
    if (options.stopRequested?.()) {
      await client.request('POST', `/v1/batch/${job.id}/close`, { onDrop: 'once' }).catch(() => undefined);
      throw new InterruptedSubmission(job.id, submitted, input.items.length);
    }
    try {
      const appended = await client.json<{ job: BatchJob }>('POST', `/v1/batch/${job.id}/items`, { json: listBody(chunk, input.plainUrls), onDrop: 'never' });
      job = appended.job;
    } catch (error) {
      await client.request('POST', `/v1/batch/${job.id}/close`, { onDrop: 'once' }).catch(() => undefined);
      throw new PartialSubmission(job.id, submitted, input.items.length, withItemLines(error, input, submitted));
    }
    submitted += chunk.length;
    options.onChunk?.(submitted, input.items.length);
  }
  if (open) job = await client.json<BatchJob>('POST', `/v1/batch/${job.id}/close`, { onDrop: 'once' });
  return { job, calls: chunks.length + (open ? 1 : 0), warnings };
}

/** Some chunks were accepted, then one was refused: the job runs what it has. */
export class PartialSubmission extends Error {
  override name = 'PartialSubmission';
  constructor(
    readonly jobId: string,
    readonly submitted: number,
    readonly total: number,
    override readonly cause: unknown,
  ) {
    super(`batch job ${jobId} holds ${submitted} of ${total} items: appending the rest failed; the job was closed and runs what it holds`);
  }

  get apiError(): ApiError | null {
    return this.cause instanceof ApiError ? this.cause : null;
  }
}

/** Ctrl-C or SIGTERM while the chunks were being sent: the job was closed with what it holds. */
export class InterruptedSubmission extends Error {
  override name = 'InterruptedSubmission';
  constructor(
    readonly jobId: string,
    readonly submitted: number,
    readonly total: number,
  ) {
    super(
      `interrupted: batch job ${jobId} holds ${submitted} of ${total} items and was closed, so it runs what it holds. ` +
        `Follow it: trawler batch results ${jobId} --follow -o FILE; stop it: trawler batch cancel ${jobId}`,
    );
  }
}

/**
 * The service names a refused item by its 0-based index in that call (`Item 3: ...`); the person wants
 * the line of their file: `urls.txt:5 (item 4): ...`, items and lines counting from 1.
 */
export function withItemLines(error: unknown, input: Pick<BatchInput, 'where'>, offset: number): unknown {
  if (!(error instanceof ApiError) || typeof error.problem.detail !== 'string') return error;
  error.problem.detail = error.problem.detail.replace(/^Item (\d+):/, (whole, index: string) => {
    const item = offset + Number(index);
    const at = input.where[item];
    return at === undefined ? whole : `${at} (item ${item + 1}):`;
  });
  return error;
}
