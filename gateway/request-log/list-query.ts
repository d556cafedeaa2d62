import { ServiceError } from '../../lib/errors/index.js';
import { DATE_RANGE_MESSAGE, isInstantInRange, utcDate } from '../../lib/validation/dates.js';
import { rejectUnknownParameters } from '../query-parameters.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** Query parameters of GET /v1/requests. Query-string keys are ignored, so they are not unknown (docs/api-reference.md "Authentication"). */
export const REQUEST_LOG_LIST_PARAMETERS = ['all_projects', 'limit', 'status', 'only_errors', 'before', 'before_id'] as const;

export interface RequestLogListQuery {
  allProjects: boolean;
  limit: number;
  status?: string;
  onlyErrors: boolean;
  /** `id` null: `before` came without `before_id` (an inclusive bound on time alone). */
  before?: { at: Date; id: string | null };
}

type QueryValue = string | string[] | undefined;

/**
 * Reads the list query the way docs/request-log.md describes. An empty value counts as not sent.
 * A repeated parameter is judged by that parameter's own rule (not a number, not a known status...).
 */
export function parseListQuery(query: Record<string, unknown>): RequestLogListQuery {
  rejectUnknownParameters(query, REQUEST_LOG_LIST_PARAMETERS);
  const value = (name: string): QueryValue => {
    const raw = query[name] as QueryValue;
    return raw === '' ? undefined : raw;
  };
  const status = value('status');
  const result: RequestLogListQuery = {
    allProjects: parseAllProjects(value('all_projects')),
    limit: clampLimit(value('limit')),
    onlyErrors: value('only_errors') === 'true',
    // An array never equals a status, which gives the empty page an unknown status gives.
    status: status === undefined ? undefined : Array.isArray(status) ? '' : status,
  };
  const before = value('before');
  const beforeId = value('before_id');
  if (Array.isArray(beforeId)) throw invalid('before_id', 'must be sent once');
  // before_id alone does not bound the page; before alone bounds it inclusively.
  if (before !== undefined) result.before = { at: parseTimestamp(before), id: beforeId ?? null };
  return result;
}

function parseAllProjects(raw: QueryValue): boolean {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw invalid('all_projects', 'must be true or false');
}

/** Clamped silently: missing, non-numeric or non-positive gives 50; above 200 gives 200; fractions round down. */
export function clampLimit(raw: QueryValue): number {
  if (typeof raw !== 'string' || raw.trim() === '') return DEFAULT_PAGE_SIZE;
  const parsed = Number(raw.trim());
  if (Number.isNaN(parsed)) return DEFAULT_PAGE_SIZE;
  const whole = Math.floor(parsed);
  if (whole < 1) return DEFAULT_PAGE_SIZE;
  return Math.min(whole, MAX_PAGE_SIZE);
}

// RFC 3339 date-time. A space where the offset's "+" stood is accepted: an unencoded "+" in a query means space.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+\- ]\d{2}:\d{2})$/;

/** Digits past milliseconds are dropped (entries carry millisecond precision). */
export function parseTimestamp(raw: string | string[]): Date {
  const match = typeof raw === 'string' ? RFC3339.exec(raw) : null;
  if (typeof raw !== 'string' || !match) throw invalid('before', 'must be an RFC 3339 date-time such as 2025-01-31T12:00:00.000Z');
  const [, year, month, day, hour, minute, second, , offset] = match;
  const daysInMonth = utcDate(Number(year), Number(month), 0).getUTCDate();
  const offsetOk = /^[Zz]$/.test(offset) || (Number(offset.slice(1, 3)) < 24 && Number(offset.slice(4, 6)) < 60);
  const fieldsOk =
    Number(month) >= 1 && Number(month) <= 12 && Number(day) >= 1 && Number(day) <= daysInMonth &&
    Number(hour) < 24 && Number(minute) < 60 && Number(second) < 60;
  const normalised = raw.slice(0, 10) + 'T' + raw.slice(11).replace(/ (\d{2}:\d{2})$/, '+$1').toUpperCase();
  const at = new Date(normalised);
  if (!offsetOk || !fieldsOk || Number.isNaN(at.getTime())) {
    throw invalid('before', 'is not a valid date-time');
  }
  if (!isInstantInRange(at)) throw invalid('before', DATE_RANGE_MESSAGE);
  return at;
}

function invalid(name: string, problem: string): ServiceError {
  return new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `Query parameter "${name}" ${problem}`);
}
