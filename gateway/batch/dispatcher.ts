import { hostname } from 'node:os';
import { newId } from '../../lib/ids.js';
import { settleReservation } from '../../lib/store/credits.js';
import { purgeExpiredResults } from '../../lib/store/batch/jobs.js';
import { claimItems, dueReleases, expiredLeases, jobsToFinalize, renewLeases, type ClaimedItem } from '../../lib/store/batch/leases.js';
import type { GatewayContext } from '../context.js';
import { startPeriodic } from '../periodic.js';
import { finalizeJob, finishItem, requeueExpired } from './lifecycle.js';
import { runItem } from './run-item.js';

const SWEEP_BATCH = 500;
/** Well inside the ten minutes after which gateway/main.ts releases a hold as stale. */
const HOUSEKEEPING_EVERY_MS = 60_000;

export interface BatchDispatcher {
  readonly owner: string;
  /** Runs one pass now (tests and the timer use it). */
  tick(): Promise<void>;
  /** Stops claiming; waits up to `graceMs` for running items, then hands the rest back to the queue. */
  stop(graceMs: number): Promise<void>;
}

/**
 * The batch dispatcher of one gateway process (docs/batch.md "Dispatch"). Every pass: put back items of
 * crashed dispatchers, return due holds, end drained jobs, claim queued items up to capacity and run them.
 * Any number of gateways may run one; PostgreSQL row locks and leases keep them apart.
 */
export function startBatchDispatcher(context: GatewayContext, options: { owner?: string; autoStart?: boolean } = {}): BatchDispatcher {
  const owner = options.owner ?? `${hostname()}:${process.pid}:${newId()}`;
  const config = context.config;
  const inFlight = new Map<string, Promise<void>>();
  let stopped = false;
  let lastHousekeeping = 0;

  const runClaimed = (item: ClaimedItem) => {
    const key = `${item.job.id}:${item.seq}`;
    const work = (async () => {
      const outcome = await runItem(context, item);
      await context.db.transaction((tx) =>
        finishItem(tx, { jobId: item.job.id, seq: item.seq, owner, requestId: item.requestId, outcome, releaseDelayMs: config.BATCH_HOLD_RETURN_DELAY_MS }),
      );
    })()
      .catch((error: unknown) => context.logger.error({ err: error, job: item.job.id, seq: item.seq }, 'batch item failed to finish'))
      .finally(() => inFlight.delete(key));
    inFlight.set(key, work);
  };

  const pass = async () => {
    await requeueCrashed();
    await returnDueHolds();
    for (const jobId of await jobsToFinalize(context.db)) {
      await context.db.transaction((tx) => finalizeJob(tx, jobId, config.BATCH_HOLD_RETURN_DELAY_MS));
    }
    if (Date.now() - lastHousekeeping >= HOUSEKEEPING_EVERY_MS) {
      lastHousekeeping = Date.now();
      await purgeExpiredResults(context.db);
    }
    if (inFlight.size > 0) await renewLeases(context.db, owner, config.BATCH_LEASE_MS);
    const room = config.BATCH_DISPATCH_CAPACITY - inFlight.size;
    // A gateway that has not yet heard from any worker (just started, or the fleet is down) leaves items
    // queued rather than spending their attempts on ENGINE::UNAVAILABLE.
    if (room <= 0 || stopped || context.directory.deployedEngines().size === 0) return;
    const claimed = await context.db.transaction((tx) =>
      claimItems(tx, { owner, leaseMs: config.BATCH_LEASE_MS, capacity: room, releaseDelayMs: config.BATCH_HOLD_RETURN_DELAY_MS }),
    );
    for (const item of claimed) runClaimed(item);
  };

  const requeueCrashed = async () => {
    await context.db.transaction(async (tx) => {
      for (const item of await expiredLeases(tx, SWEEP_BATCH)) await requeueExpired(tx, item, config.BATCH_HOLD_RETURN_DELAY_MS);
    });
  };

  const returnDueHolds = async () => {
    for (const due of await dueReleases(context.db, SWEEP_BATCH)) {
      await context.db.transaction(async (tx) => {
        if (due.reservation_id !== null) await settleReservation(tx, due.reservation_id, 0);
        await tx.query('UPDATE batch_items SET release_at = NULL WHERE job_id = $1 AND seq = $2', [due.job_id, due.seq]);
      });
    }
  };

  const periodic = startPeriodic({
    intervalMs: config.BATCH_DISPATCH_INTERVAL_MS,
    autoStart: options.autoStart,
    runAtStart: true,
    pass,
    onError: (error) => context.logger.warn({ err: error }, 'batch dispatch pass failed'),
  });

  return {
    owner,
    tick: periodic.tick,
    async stop(graceMs: number) {
      stopped = true;
      await periodic.stop();
      let timeout: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timeout = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.all(inFlight.values()), deadline]);
      clearTimeout(timeout);
      if (inFlight.size > 0) {
        await context.db
          .query(`UPDATE batch_items SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = $1 AND status = 'running'`, [owner])
          .catch((error: unknown) => context.logger.warn({ err: error }, 'handing batch items back failed'));
      }
    },
  };
}
