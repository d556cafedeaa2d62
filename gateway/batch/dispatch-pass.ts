import type { Config } from '../../lib/config.js';
import { purgeExpiredResults } from '../../lib/store/batch/jobs.js';
import { dueReleases, expiredLeases, jobsToFinalize, renewLeases } from '../../lib/store/batch/leases.js';
import type { Db } from '../../lib/store/db.js';
import type { DispatchWaitPoints } from './dispatcher-hooks.js';
import { finalizeJob, requeueExpired, returnDueHold } from './lifecycle.js';

const SWEEP_BATCH = 500;
/** Well inside the ten minutes after which gateway/main.ts releases a hold as stale. */
const HOUSEKEEPING_EVERY_MS = 60_000;

export interface DispatchPassDeps {
  db: Db;
  owner: string;
  config: Pick<Config, 'BATCH_LEASE_MS' | 'BATCH_HOLD_RETURN_DELAY_MS'>;
  /** Items this dispatcher holds (their leases are renewed while there are any). */
  held(): number;
  /** Claims up to capacity. */
  claim(): Promise<void>;
  waitPoints: Pick<DispatchWaitPoints, 'beforeHoldReturn'>;
}

/**
 * A dispatcher's pass (every BATCH_DISPATCH_INTERVAL_MS, the fallback, and how work submitted to other
 * gateways is found): put back items of crashed dispatchers, return due holds, end drained jobs,
 * purge expired results now and then, renew this dispatcher's leases, claim up to capacity.
 */
export function dispatchPass(deps: DispatchPassDeps): () => Promise<void> {
  const { db, owner, config, waitPoints } = deps;
  let lastHousekeeping = 0;
  let lastRenewal = 0;
  return async () => {
    for (const item of await expiredLeases(db, SWEEP_BATCH)) {
      await db.transaction((tx) => requeueExpired(tx, item, config.BATCH_HOLD_RETURN_DELAY_MS));
    }
    for (const due of await dueReleases(db, SWEEP_BATCH)) {
      await waitPoints.beforeHoldReturn(due);
      await db.transaction((tx) => returnDueHold(tx, due));
    }
    for (const jobId of await jobsToFinalize(db)) {
      await db.transaction((tx) => finalizeJob(tx, jobId, config.BATCH_HOLD_RETURN_DELAY_MS));
    }
    if (Date.now() - lastHousekeeping >= HOUSEKEEPING_EVERY_MS) {
      lastHousekeeping = Date.now();
      await purgeExpiredResults(db);
    }
    // A quarter of a lease between renewals keeps every lease at least three quarters full (a claim starts
    // a full one); renewing every pass rewrote all running items twice a second for two-minute leases.
    if (deps.held() > 0 && Date.now() - lastRenewal >= config.BATCH_LEASE_MS / 4) {
      await renewLeases(db, owner, config.BATCH_LEASE_MS);
      lastRenewal = Date.now();
    }
    await deps.claim();
  };
}
