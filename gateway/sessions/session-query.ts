import { ServiceError } from '../../lib/errors/index.js';
import { SESSION_STATUSES, notFound, type SessionStatus } from '../../lib/store/sessions/index.js';
import { rejectUnknownParameters } from '../query-parameters.js';
import { requestLogIdFrom } from '../request-log/record-id.js';

export const DEFAULT_SESSION_PAGE = 50;
export const MAX_SESSION_PAGE = 200;
/** Query parameters each route accepts (the API reference lists the same names). */
export const SESSION_LIST_PARAMETERS = ['limit', 'cursor', 'status'] as const;
export const FORCE_PARAMETERS = ['force'] as const;
const FORCE_VALUES: Record<string, boolean> = { true: true, t: true, '1': true, false: false, f: false, '0': false };

function invalid(name: string, detail: string): ServiceError {
  return new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `${name}: ${detail}`);
}

/** The stored (ULID) id a path names; malformed ids get the same 404 as unknown ones (docs/sessions.md). */
export function sessionIdFrom(raw: string): string {
  const id = raw.length >= 26 && raw.length <= 36 ? requestLogIdFrom(raw) : null;
  if (id === null) throw notFound(raw.slice(0, 64));
  return id;
}

/** `force`: true, false, 1, 0, t, f in any case; absent means false; anything else is 400. */
export function parseForce(query: Record<string, unknown>): boolean {
  rejectUnknownParameters(query, FORCE_PARAMETERS);
  const raw = query.force;
  if (raw === undefined) return false;
  const value = typeof raw === 'string' ? FORCE_VALUES[raw.toLowerCase()] : undefined;
  if (value === undefined) throw invalid('force', 'must be one of true, false, 1, 0, t, f');
  return value;
}

export interface SessionListParameters {
  limit: number;
  status?: SessionStatus;
  beforeId?: string;
}

/** GET /v1/sessions: `limit` 1..200 (default 50), opaque `cursor`, optional `status` filter. */
export function parseSessionList(query: Record<string, unknown>): SessionListParameters {
  rejectUnknownParameters(query, SESSION_LIST_PARAMETERS);
  const result: SessionListParameters = { limit: DEFAULT_SESSION_PAGE };
  const { limit, cursor, status } = query;
  if (limit !== undefined) {
    const parsed = typeof limit === 'string' && /^\d+$/.test(limit) ? Number(limit) : Number.NaN;
    if (!(parsed >= 1 && parsed <= MAX_SESSION_PAGE)) throw invalid('limit', `must be an integer from 1 to ${MAX_SESSION_PAGE}`);
    result.limit = parsed;
  }
  if (status !== undefined) {
    const lower = typeof status === 'string' ? status.toLowerCase() : '';
    if (!(SESSION_STATUSES as readonly string[]).includes(lower)) throw invalid('status', `must be one of ${SESSION_STATUSES.join(', ')}`);
    result.status = lower as SessionStatus;
  }
  if (cursor !== undefined) result.beforeId = readCursor(cursor);
  return result;
}

/** Cursors are opaque to callers: the last id of the page, base64url-encoded with a version tag. */
export function cursorAfter(lastId: string): string {
  return Buffer.from(`s1:${lastId}`).toString('base64url');
}

function readCursor(raw: unknown): string {
  const decoded = typeof raw === 'string' ? Buffer.from(raw, 'base64url').toString('utf8') : '';
  const id = decoded.startsWith('s1:') ? decoded.slice(3) : '';
  if (!/^[0-9A-HJKMNP-TV-Z]{26}$/.test(id)) throw invalid('cursor', 'is not a cursor this endpoint handed out');
  return id;
}
