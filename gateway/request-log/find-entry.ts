import { decodeTime } from 'ulid';
import { asStored, getRequestLog } from '../../lib/store/request-log.js';
import type { RequestLogEntry } from '../../lib/store/request-log-entry.js';
import type { GatewayContext } from '../context.js';

/** Slack past the longest request for an id another replica answered with and has not yet written. */
const ANSWER_SLACK_MS = 10_000;

/**
 * The entry of a request id (docs/request-log.md, "Batched writes"): pending in this gateway's writer,
 * else stored. With PostgreSQL another replica may hold the entry for up to its flush interval, so a
 * miss on an id issued recently enough to have just been answered is looked up once more after that.
 */
export async function findRequestLogEntry(context: GatewayContext, id: string, organizationId: string): Promise<RequestLogEntry | null> {
  const found = await lookUp(context, id, organizationId);
  if (found || context.db.kind !== 'postgres' || !recentlyIssued(id, context.config.SCRAPE_BUDGET_MS + ANSWER_SLACK_MS)) return found;
  await new Promise((resolve) => setTimeout(resolve, 2 * context.config.REQUEST_LOG_FLUSH_MS + 50));
  return lookUp(context, id, organizationId);
}

async function lookUp(context: GatewayContext, id: string, organizationId: string): Promise<RequestLogEntry | null> {
  // Pending first: an entry leaves the writer only once it is stored, so this order never misses it.
  const pending = context.requestLog.pending(id, organizationId);
  if (pending) return asStored(pending);
  return (await getRequestLog(context.db, id, organizationId))?.entry ?? null;
}

function recentlyIssued(id: string, withinMs: number): boolean {
  try {
    return Date.now() - decodeTime(id) <= withinMs;
  } catch {
    return false;
  }
}
