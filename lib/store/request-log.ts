import { storableJson } from '../validation/storable.js';
import type { Queryable } from './db.js';
import type { RequestLogEntry } from './request-log-entry.js';

export interface RequestLogQuery {
  organizationId: string;
  /** The projects to list, or every project of the organization (archived included). */
  projectIds: string[] | 'all';
  /** Exact status match; a value no entry has gives an empty page. */
  status?: string;
  /** Every status except `success`; `status` is ignored when set. */
  onlyErrors: boolean;
  /**
   * Keyset cursor: entries strictly older than (at, id) in (created_at, id) order. With `id` null the
   * bound is on time alone and inclusive, so the boundary entry comes back again.
   */
  before?: { at: Date; id: string | null };
  limit: number;
  /** Entries whose URL contains this text (case-insensitive); the dashboard's search. */
  urlContains?: string;
  /** Leave out successful calls that scraped nothing (reads of a batch job, usage...): the dashboard's default. */
  hideSuccessfulReads?: boolean;
  /** Entries created before this are treated as gone, whether or not the purge has run. */
  retainedSince: Date;
}

export interface RequestLogPage {
  entries: RequestLogEntry[];
  hasMore: boolean;
}

const PURGE_BATCH = 5000;

/** One entry to store, with the organization it belongs to. */
export interface RequestLogRow {
  entry: RequestLogEntry;
  organizationId: string;
}

/**
 * Stores one finished entry; a second insert of the same id changes nothing. Text a caller sent that
 * PostgreSQL cannot hold (NUL, lone surrogates) is stored as U+FFFD, so the write never fails on it.
 */
export async function insertRequestLog(db: Queryable, entry: RequestLogEntry, organizationId: string): Promise<void> {
  await insertRequestLogs(db, [{ entry, organizationId }]);
}

/**
 * Stores finished entries in one statement (the gateway's batched writer, docs/request-log.md). The
 * rows travel as one JSON array rather than six parameters each: on PGlite every parameter costs its
 * own encoding, and this was about a sixth cheaper per row (docs/platform.md, "Performance").
 */
export async function insertRequestLogs(db: Queryable, rows: readonly RequestLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  const records = rows.map(({ entry, organizationId }) => {
    const createdAt = createdAtOf(entry).toISOString();
    const stored = entry.created_at === createdAt ? entry : { ...entry, created_at: createdAt };
    return { id: entry.id, organization_id: organizationId, project_id: entry.project_id, created_at: createdAt, status: entry.status, entry: stored };
  });
  await db.query(
    `INSERT INTO request_log (id, organization_id, project_id, created_at, status, entry)
     SELECT r.id, r.organization_id, r.project_id, r.created_at, r.status, r.entry
       FROM jsonb_to_recordset($1::jsonb) AS r(id text, organization_id text, project_id text, created_at timestamptz, status text, entry jsonb)
     ON CONFLICT (id) DO NOTHING`,
    [storableJson(records)],
  );
}

/** The entry as a read of the stored row returns it (for entries not yet written). */
export function asStored(entry: RequestLogEntry): RequestLogEntry {
  return inOrder(JSON.parse(storableJson({ ...entry, created_at: createdAtOf(entry).toISOString() })) as RequestLogEntry);
}

/** Millisecond precision (docs/request-log.md), so the cursor handed out round-trips exactly to the stored value. */
function createdAtOf(entry: RequestLogEntry): Date {
  const createdAt = new Date(entry.created_at);
  if (Number.isNaN(createdAt.getTime())) {
    // SQLSTATE 22007 (invalid datetime): a fault of the row, which a batched writer drops.
    throw Object.assign(new Error(`request log entry ${entry.id} has an invalid created_at`), { code: '22007' });
  }
  return createdAt;
}

/** One page, newest first by (created_at, id). */
export async function listRequestLog(db: Queryable, query: RequestLogQuery): Promise<RequestLogPage> {
  const params: unknown[] = [query.organizationId, query.retainedSince];
  const conditions = ['organization_id = $1', 'created_at >= $2'];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (query.projectIds !== 'all') conditions.push(`project_id = ANY(${param(query.projectIds)}::text[])`);
  if (query.onlyErrors) conditions.push(`status <> 'success'`);
  else if (query.status !== undefined) conditions.push(`status = ${param(query.status)}`);
  if (query.urlContains) conditions.push(`entry->>'url' ILIKE ${param(`%${query.urlContains.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`);
  if (query.hideSuccessfulReads) conditions.push(`(entry->>'url' IS NOT NULL OR status <> 'success')`);
  if (query.before && query.before.id !== null) {
    conditions.push(`(created_at, id) < (${param(query.before.at)}::timestamptz, ${param(query.before.id)}::text COLLATE "C")`);
  } else if (query.before) {
    conditions.push(`created_at <= ${param(query.before.at)}::timestamptz`);
  }
  const limit = param(query.limit + 1);
  const result = await db.query<{ entry: RequestLogEntry }>(
    `SELECT entry FROM request_log WHERE ${conditions.join(' AND ')}
      ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
    params,
  );
  const rows = result.rows.map((row) => inOrder(row.entry));
  return { entries: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}

/** The entry with this id in this organization, or null (also for another organization's entry). */
export async function getRequestLog(db: Queryable, id: string, organizationId: string): Promise<{ entry: RequestLogEntry } | null> {
  const result = await db.query<{ entry: RequestLogEntry }>(
    'SELECT entry FROM request_log WHERE id = $1 AND organization_id = $2',
    [id, organizationId],
  );
  const row = result.rows[0];
  return row ? { entry: inOrder(row.entry) } : null;
}

/** Deletes entries created before `olderThan`, in batches so no single statement holds locks for long. */
export async function purgeRequestLog(db: Queryable, olderThan: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await db.query(
      `DELETE FROM request_log WHERE id IN (
         SELECT id FROM request_log WHERE created_at < $1 LIMIT ${PURGE_BATCH})`,
      [olderThan],
    );
    total += result.rowCount;
    if (result.rowCount < PURGE_BATCH) return total;
  }
}

/** jsonb sorts object keys; responses show the fields in the documented order (`RequestLogEntry`). */
function inOrder(entry: RequestLogEntry): RequestLogEntry {
  return {
    id: entry.id,
    created_at: entry.created_at,
    project_id: entry.project_id,
    engine: entry.engine,
    status: entry.status,
    http_status: entry.http_status,
    error_code: entry.error_code,
    error_detail: entry.error_detail,
    attempts: entry.attempts,
    url: entry.url,
    url_host: entry.url_host,
    proxy: entry.proxy,
    spans: entry.spans,
    blocked: entry.blocked,
    bytes_in: entry.bytes_in,
    bytes_out: entry.bytes_out,
    proxy_bytes: entry.proxy_bytes,
    credits_micro: entry.credits_micro,
    features: entry.features,
  };
}
