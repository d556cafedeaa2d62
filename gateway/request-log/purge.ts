import { purgeRequestLog } from '../../lib/store/request-log.js';
import type { GatewayContext } from '../context.js';
import { startPeriodic, type PeriodicTask } from '../periodic.js';

export const PURGE_INTERVAL_MS = 5 * 60_000;

export type RequestLogPurge = PeriodicTask;

/**
 * Deletes request log entries past retention: once at start, then every few minutes. Reads already
 * hide expired entries, so the purge only bounds storage; a failed run is logged and retried next time.
 * Several gateway replicas may run it at once; the deletes are idempotent.
 */
export function startRequestLogPurge(
  context: Pick<GatewayContext, 'db' | 'config' | 'logger'>,
  options: { intervalMs?: number } = {},
): RequestLogPurge {
  return startPeriodic({
    intervalMs: options.intervalMs ?? PURGE_INTERVAL_MS,
    runAtStart: true,
    pass: async () => {
      const olderThan = new Date(Date.now() - context.config.REQUEST_LOG_RETENTION_HOURS * 3_600_000);
      const deleted = await purgeRequestLog(context.db, olderThan);
      if (deleted > 0) context.logger.info({ deleted, olderThan: olderThan.toISOString() }, 'request log purged');
    },
    onError: (error) => context.logger.warn({ err: error }, 'request log purge failed'),
  });
}
