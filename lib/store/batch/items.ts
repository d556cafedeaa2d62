import type { Queryable } from '../db.js';
import type { JobTotals } from './jobs.js';

export const ITEM_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'skipped'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];
export const FINISHED_ITEM_STATUSES = ['succeeded', 'failed', 'cancelled', 'skipped'] as const;
export type FinishedItemStatus = (typeof FINISHED_ITEM_STATUSES)[number];

export interface NewItem {
  seq: number;
  url: string;
  external_id: string | null;
  overrides: Record<string, unknown>;
  /** Sealed secrets of `overrides` (lib/store/batch/sealed-params.ts); absent: none. */
  sealed_overrides?: string;
  hold_micro: number;
  reservation_id: string;
}

/** What an item row says, without its body (results pages read the body separately, in bounded slices). */
export interface ItemRow {
  job_id: string;
  seq: number;
  url: string;
  external_id: string | null;
  overrides: Record<string, unknown>;
  status: ItemStatus;
  attempts: number;
  hold_micro: number;
  reservation_id: string | null;
  request_id: string | null;
  http_status: number | null;
  credits_micro: number;
  bytes: number;
  duration_ms: number;
  error_code: string | null;
  error_retryable: boolean | null;
  error_detail: string | null;
  content_type: string | null;
  finished_at: Date | null;
  /** Bytes of the stored body, null when none is stored (never stored, or purged). */
  body_bytes: number | null;
}

const ITEM_COLUMNS = `job_id, seq, url, external_id, overrides, status, attempts, hold_micro, reservation_id, request_id,
  http_status, credits_micro, bytes, duration_ms, error_code, error_retryable, error_detail, content_type, finished_at,
  octet_length(body) AS body_bytes`;

const INSERT_CHUNK = 2000;

export async function insertItems(db: Queryable, jobId: string, items: NewItem[]): Promise<void> {
  for (let start = 0; start < items.length; start += INSERT_CHUNK) {
    const chunk = items.slice(start, start + INSERT_CHUNK);
    await db.query(
      `INSERT INTO batch_items (job_id, seq, url, external_id, overrides, sealed_overrides, status, hold_micro, reservation_id)
       SELECT $1, x.seq, x.url, x.external_id, x.overrides, COALESCE(x.sealed_overrides, ''), 'queued', x.hold_micro, x.reservation_id
         FROM jsonb_to_recordset($2::jsonb) AS x(seq bigint, url text, external_id text, overrides jsonb, sealed_overrides text, hold_micro bigint, reservation_id text)`,
      [jobId, JSON.stringify(chunk)],
    );
  }
}

export interface Progress {
  total: number;
  queued: number;
  running: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  skipped: number;
  creditsChargedMicro: number;
  bytes: number;
}

/** A job's progress from the totals on its row (migration 014), which move with its items. */
export function progressOf(totals: JobTotals): Progress {
  const progress: Progress = {
    total: 0,
    queued: Number(totals.items_queued),
    running: Number(totals.items_running),
    succeeded: Number(totals.items_succeeded),
    failed: Number(totals.items_failed),
    cancelled: Number(totals.items_cancelled),
    skipped: Number(totals.items_skipped),
    creditsChargedMicro: Number(totals.items_charged_micro),
    bytes: Number(totals.items_bytes),
  };
  progress.total = progress.queued + progress.running + progress.succeeded + progress.failed + progress.cancelled + progress.skipped;
  return progress;
}

export interface ResultsQuery {
  jobId: string;
  afterSeq: number;
  /** Items at or past this seq are not listed (the first unfinished item of a running job). */
  beforeSeq: number | null;
  status?: FinishedItemStatus;
  limit: number;
}

/** Finished items in seq order after `afterSeq`; one row more than `limit` tells whether more exist. */
export async function listFinishedItems(db: Queryable, query: ResultsQuery): Promise<{ items: ItemRow[]; hasMore: boolean }> {
  const params: unknown[] = [query.jobId, query.afterSeq, query.status ? [query.status] : [...FINISHED_ITEM_STATUSES]];
  let bound = '';
  if (query.beforeSeq !== null) {
    params.push(query.beforeSeq);
    bound = `AND seq < $${params.length}`;
  }
  params.push(query.limit + 1);
  const result = await db.query<ItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM batch_items
      WHERE job_id = $1 AND seq > $2 AND status = ANY($3::text[]) ${bound}
      ORDER BY seq LIMIT $${params.length}`,
    params,
  );
  return { items: result.rows.slice(0, query.limit), hasMore: result.rows.length > query.limit };
}

/** The lowest seq still queued or running, or null when every item has finished. */
export async function firstUnfinishedSeq(db: Queryable, jobId: string): Promise<number | null> {
  const result = await db.query<{ seq: number | null }>(
    `SELECT min(seq) AS seq FROM batch_items WHERE job_id = $1 AND status IN ('queued', 'running')`,
    [jobId],
  );
  const seq = result.rows[0]?.seq;
  return seq === null || seq === undefined ? null : Number(seq);
}

/** The first `maxBytes` bytes of each listed item's body. */
export async function bodyPrefixes(db: Queryable, jobId: string, seqs: number[], maxBytes: number): Promise<Map<number, Buffer>> {
  if (seqs.length === 0) return new Map();
  const result = await db.query<{ seq: number; prefix: Uint8Array }>(
    `SELECT seq, substring(body FROM 1 FOR $3) AS prefix FROM batch_items WHERE job_id = $1 AND seq = ANY($2::bigint[]) AND body IS NOT NULL`,
    [jobId, seqs, maxBytes],
  );
  return new Map(result.rows.map((row) => [Number(row.seq), Buffer.from(row.prefix)]));
}

export async function getItem(db: Queryable, jobId: string, seq: number): Promise<(ItemRow & { body: Buffer | null }) | null> {
  const result = await db.query<ItemRow & { body: Uint8Array | null }>(
    `SELECT ${ITEM_COLUMNS}, body FROM batch_items WHERE job_id = $1 AND seq = $2`,
    [jobId, seq],
  );
  const row = result.rows[0];
  if (!row) return null;
  return { ...row, body: row.body ? Buffer.from(row.body) : null };
}

/** Cancels every queued item of a job; their holds go back after `releaseDelayMs`. */
export async function cancelQueuedItems(db: Queryable, jobId: string, releaseDelayMs: number): Promise<number> {
  const result = await db.query(
    `UPDATE batch_items SET status = 'cancelled', finished_at = now(),
            release_at = now() + ($2::bigint * interval '1 millisecond')
      WHERE job_id = $1 AND status = 'queued'`,
    [jobId, releaseDelayMs],
  );
  return result.rowCount;
}

export async function failedItems(db: Queryable, jobId: string): Promise<{ seq: number; hold_micro: number; reservation_id: string | null; hold_open: boolean }[]> {
  const result = await db.query<{ seq: number; hold_micro: number; reservation_id: string | null; hold_open: boolean }>(
    `SELECT i.seq, i.hold_micro, i.reservation_id, (r.id IS NOT NULL AND r.settled_at IS NULL) AS hold_open
       FROM batch_items i LEFT JOIN credit_reservations r ON r.id = i.reservation_id
      WHERE i.job_id = $1 AND i.status = 'failed' ORDER BY i.seq`,
    [jobId],
  );
  return result.rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}

/** Back to the queue: the failed item keeps its attempts and now holds `reservationId`. */
export async function resetFailedItems(db: Queryable, jobId: string, resets: { seq: number; reservation_id: string }[]): Promise<void> {
  if (resets.length === 0) return;
  await db.query(
    `UPDATE batch_items i SET status = 'queued', reservation_id = x.reservation_id, release_at = NULL, finished_at = NULL,
            error_code = NULL, error_retryable = NULL, error_detail = NULL, http_status = NULL, lease_owner = NULL,
            lease_expires_at = NULL
       FROM jsonb_to_recordset($2::jsonb) AS x(seq bigint, reservation_id text)
      WHERE i.job_id = $1 AND i.seq = ANY($3::bigint[]) AND i.seq = x.seq AND i.status = 'failed'`,
    [jobId, JSON.stringify(resets), resets.map((reset) => reset.seq)],
  );
}
