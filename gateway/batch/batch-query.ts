import { ServiceError } from '../../lib/errors/index.js';
import { isUlid } from '../../lib/ids.js';
import { isInstantInRange } from '../../lib/validation/dates.js';
import { FINISHED_ITEM_STATUSES, type FinishedItemStatus } from '../../lib/store/batch/items.js';
import { JOB_STATUSES, type JobStatus } from '../../lib/store/batch/jobs.js';
import { requestLogIdFrom } from '../request-log/record-id.js';
import { rejectUnknownParameters } from '../query-parameters.js';
import { decodeCursor } from './results.js';

type QueryValue = string | string[] | undefined;

/** Query parameters of the batch list and results pages (the API reference lists the same names). */
export const JOB_LIST_PARAMETERS = ['limit', 'status', 'cursor'] as const;
export const RESULTS_PARAMETERS = ['limit', 'status', 'cursor'] as const;

function invalid(name: string, detail: string): ServiceError {
  return new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `${name}: ${detail}`);
}

function single(query: Record<string, unknown>, name: string): string | undefined {
  const raw = query[name] as QueryValue;
  if (Array.isArray(raw)) throw invalid(name, 'must be sent once');
  return raw === '' ? undefined : raw;
}

/** A whole number within bounds; anything else is a 400 (batch limits are never clamped silently). */
function boundedInteger(raw: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw.trim())) throw invalid(name, `must be an integer from ${min} to ${max}`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw invalid(name, `must be an integer from ${min} to ${max}`);
  return value;
}

/** The stored id of a job from the path, or null when malformed (answered like an unknown job: 404). */
export function jobIdFrom(raw: string): string | null {
  return requestLogIdFrom(raw);
}

export interface JobListQuery {
  limit: number;
  status?: JobStatus;
  before?: { at: Date; id: string };
}

export function parseJobListQuery(query: Record<string, unknown>): JobListQuery {
  rejectUnknownParameters(query, JOB_LIST_PARAMETERS);
  const result: JobListQuery = { limit: boundedInteger(single(query, 'limit'), 'limit', 1, 200, 50) };
  const status = single(query, 'status')?.toLowerCase();
  if (status !== undefined) {
    if (!(JOB_STATUSES as readonly string[]).includes(status)) throw invalid('status', `must be one of ${JOB_STATUSES.join(', ')}`);
    result.status = status as JobStatus;
  }
  const cursor = single(query, 'cursor');
  if (cursor !== undefined) result.before = decodeListCursor(cursor);
  return result;
}

export function encodeListCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify({ t: at.toISOString(), i: id }), 'utf8').toString('base64url');
}

function decodeListCursor(token: string): { at: Date; id: string } {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { t?: unknown; i?: unknown };
    const at = typeof value.t === 'string' ? new Date(value.t) : null;
    if (at && isInstantInRange(at) && typeof value.i === 'string' && isUlid(value.i)) return { at, id: value.i };
  } catch {
    // fall through: not one of ours
  }
  throw invalid('cursor', 'not a cursor this endpoint handed out');
}

export interface ResultsQuery {
  limit: number;
  afterSeq: number;
  status?: FinishedItemStatus;
  /** What the caller sent, for the Link header. */
  sent: { limit?: string; status?: string };
}

export function parseResultsQuery(query: Record<string, unknown>): ResultsQuery {
  rejectUnknownParameters(query, RESULTS_PARAMETERS);
  const limitRaw = single(query, 'limit');
  const statusRaw = single(query, 'status');
  const result: ResultsQuery = { limit: boundedInteger(limitRaw, 'limit', 1, 5000, 500), afterSeq: -1, sent: {} };
  if (limitRaw !== undefined) result.sent.limit = limitRaw;
  if (statusRaw !== undefined) {
    const status = statusRaw.toLowerCase();
    if (!(FINISHED_ITEM_STATUSES as readonly string[]).includes(status)) {
      throw invalid('status', `must be one of ${FINISHED_ITEM_STATUSES.join(', ')} (results list finished items only)`);
    }
    result.status = status as FinishedItemStatus;
    result.sent.status = statusRaw;
  }
  const cursor = single(query, 'cursor');
  if (cursor !== undefined) result.afterSeq = decodeCursor(cursor);
  return result;
}

/** Routes documented as taking no body accept none, or `{}`. */
export function checkNoBody(body: unknown): void {
  if (body === undefined) return;
  if (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0) return;
  throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', 'this route takes no request body');
}
