import { ServiceError } from '../../lib/errors/index.js';
import type { Queryable } from '../../lib/store/db.js';
import { bodyPrefixes, firstUnfinishedSeq, listFinishedItems, type FinishedItemStatus, type ItemRow } from '../../lib/store/batch/items.js';
import { TERMINAL_JOB_STATUSES, type JobRow } from '../../lib/store/batch/jobs.js';
import { crawlPageLineage, type PageLineage } from '../../lib/store/crawl-lineage.js';

export const ITEM_RESULT_MAX_BYTES = 524_288;
export const PAGE_RESULT_MAX_BYTES = 2_097_152;
const CURSOR_PREFIX = 'seq:';

export interface ResultsPage {
  ndjson: string;
  nextCursor: string | null;
}

/** The opaque hex token handed out in X-Next-Cursor: the last seq of the page. */
export function encodeCursor(seq: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${seq}`, 'utf8').toString('hex');
}

export function decodeCursor(token: string): number {
  const text = /^([0-9a-f]{2})+$/i.test(token) ? Buffer.from(token, 'hex').toString('utf8') : '';
  const match = /^seq:(\d{1,15})$/.exec(text);
  if (!match) throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', 'cursor: not a cursor this endpoint handed out');
  return Number(match[1]);
}

/**
 * One page of result lines in seq order. While the job runs, the page stops before the first item not
 * yet finished, so a cursor never skips an item that finishes later; `result` appears once the job is
 * terminal. Payloads are bounded: 524,288 bytes per item (`truncated`), 2,097,152 per page (`omitted`).
 */
export async function resultsPage(db: Queryable, job: JobRow, query: { afterSeq: number; limit: number; status?: FinishedItemStatus }): Promise<ResultsPage> {
  const terminal = TERMINAL_JOB_STATUSES.includes(job.status);
  const beforeSeq = terminal ? null : await firstUnfinishedSeq(db, job.id);
  const { items, hasMore } = await listFinishedItems(db, { jobId: job.id, afterSeq: query.afterSeq, beforeSeq, status: query.status, limit: query.limit });
  const inFull = new Set<number>();
  let room = PAGE_RESULT_MAX_BYTES;
  if (terminal) {
    for (const item of items) {
      if (item.status !== 'succeeded' || item.body_bytes === null) continue;
      const size = Math.min(Number(item.body_bytes), ITEM_RESULT_MAX_BYTES);
      if (size > room) continue;
      room -= size;
      inFull.add(item.seq);
    }
  }
  const prefixes = await bodyPrefixes(db, job.id, [...inFull], ITEM_RESULT_MAX_BYTES);
  const lineage = job.kind === 'crawl' ? await crawlPageLineage(db, job.id, items.map((item) => Number(item.seq))) : null;
  const lines = items.map((item) => JSON.stringify(resultLine(item, terminal, prefixes.get(Number(item.seq)), lineage?.get(Number(item.seq)))) + '\n');
  const last = items.at(-1);
  const more = hasMore || (!terminal && last !== undefined);
  return { ndjson: lines.join(''), nextCursor: more && last ? encodeCursor(Number(last.seq)) : null };
}

/**
 * One result line (docs/batch.md), fields in its order; optional ones only when they have a value. A
 * crawl's page also says where it came from, right after its `url`: `depth`, and `parent_url` (null
 * for the seed and sitemap pages; docs/crawl.md "Result lines").
 */
function resultLine(item: ItemRow, terminal: boolean, prefix: Buffer | undefined, lineage: PageLineage | undefined): Record<string, unknown> {
  const line: Record<string, unknown> = { seq: Number(item.seq) };
  if (item.external_id !== null) line.external_id = item.external_id;
  line.url = item.url;
  if (lineage) {
    line.depth = lineage.depth;
    line.parent_url = lineage.parentUrl;
  }
  line.status = item.status;
  line.attempts = item.attempts;
  if (item.http_status !== null) line.http_status = item.http_status;
  if (item.request_id !== null && item.attempts > 0) line.request_id = item.request_id;
  line.credits_micro = Number(item.credits_micro);
  line.bytes = Number(item.bytes);
  line.duration_ms = Number(item.duration_ms);
  if (terminal && item.status === 'succeeded') line.result = resultPayload(item, prefix);
  if (item.error_code !== null && item.status === 'failed') {
    line.error = { code: item.error_code, retryable: item.error_retryable ?? false, ...(item.error_detail ? { detail: item.error_detail } : {}) };
  }
  if (item.finished_at) line.finished_at = item.finished_at.toISOString();
  return line;
}

function resultPayload(item: ItemRow, prefix: Buffer | undefined): Record<string, unknown> {
  const bytes = Number(item.bytes);
  if (item.body_bytes === null) return { bytes, unavailable: true };
  const contentType = item.content_type ?? 'application/octet-stream';
  if (prefix === undefined) return { content_type: contentType, bytes, omitted: true };
  const truncated = Number(item.body_bytes) > prefix.length;
  const binary = !isTextual(contentType);
  const content = binary ? prefix.toString('base64') : prefix.subarray(0, utf8Boundary(prefix, truncated)).toString('utf8');
  return {
    content_type: contentType,
    bytes,
    ...(binary ? { content_encoding: 'base64' } : {}),
    ...(truncated ? { truncated: true } : {}),
    content,
  };
}

export function isTextual(contentType: string): boolean {
  const type = contentType.split(';')[0].trim().toLowerCase();
  return type.startsWith('text/') || type.endsWith('json') || type.endsWith('xml') || type === 'application/javascript';
}

/** Where to cut a UTF-8 prefix so no character is split (only matters when the body goes on). */
function utf8Boundary(buffer: Buffer, cut: boolean): number {
  if (!cut) return buffer.length;
  let start = buffer.length - 1;
  while (start > 0 && buffer.length - start < 4 && (buffer[start] & 0xc0) === 0x80) start -= 1;
  const lead = buffer[start];
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start + length > buffer.length ? start : buffer.length;
}
