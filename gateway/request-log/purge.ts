import { purgeRequestLog } from '../../lib/store/request-log.js';
import type { GatewayContext } from '../context.js';

export const PURGE_INTERVAL_MS = 5 * 60_000;

export interface RequestLogPurge {
  stop(): void;
}

/**
 * Deletes request log entries past retention: once at start, then every few minutes. Reads already
 * hide expired entries, so the purge only bounds storage; a failed run is logged and retried next time.
 * Several gateway replicas may run it at once; the deletes are idempotent.
 */
export function startRequestLogPurge(
  context: Pick<GatewayContext, 'db' | 'config' | 'logger'>,
  options: { intervalMs?: number } = {},
): RequestLogPurge {
  let running = false;
  let stopped = false;
  const run = () => {
    if (running || stopped) return;
    running = true;
    const olderThan = new Date(Date.now() - context.config.REQUEST_LOG_RETENTION_HOURS * 3_600_000);
    purgeRequestLog(context.db, olderThan)
      .then((deleted) => {
        if (deleted > 0) context.logger.info({ deleted, olderThan: olderThan.toISOString() }, 'request log purged');
      })
      .catch((error: unknown) => {
        if (!stopped) context.logger.warn({ err: error }, 'request log purge failed');
      })
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(run, options.intervalMs ?? PURGE_INTERVAL_MS);
  timer.unref();
  run();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
