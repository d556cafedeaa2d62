import { hostname } from 'node:os';
import { newId } from '../../lib/ids.js';
import { purgeExpiredResults } from '../../lib/store/batch/jobs.js';
import { claimItems, dueReleases, expiredLeases, jobsToFinalize, renewLeases, type ClaimedItem } from '../../lib/store/batch/leases.js';
import { handBackItems } from '../../lib/store/batch/outcomes.js';
import type { Queryable } from '../../lib/store/db.js';
import { gatedDb } from '../../lib/store/gated-db.js';
import { dispatcherConnections } from '../../lib/store/pool-sizing.js';
import type { GatewayContext } from '../context.js';
import { countFinishedScrape, type GatewayMetrics } from '../metrics.js';
import { startPeriodic } from '../periodic.js';
import { finalizeJob, requeueExpired, returnDueHold, type ItemOutcome } from './lifecycle.js';
import { ResultWriter, type ClaimTicket } from './result-writer.js';
import { runItem } from './run-item.js';
import { onBatchWork } from './work-signal.js';

const SWEEP_BATCH = 500;
/** Well inside the ten minutes after which gateway/main.ts releases a hold as stale. */
const HOUSEKEEPING_EVERY_MS = 60_000;

export interface BatchDispatcher {
  readonly owner: string;
  /** Runs one pass now (tests and the timer use it). */
  tick(): Promise<void>;
  /** Claims queued items now, up to capacity, without waiting for the next pass. */
  wake(): void;
  /** Stops claiming; waits up to `graceMs` for running items, then hands the rest back to the queue. */
  stop(graceMs: number): Promise<void>;
}

/** Points where a test can hold the dispatcher to drive a race deterministically. */
export interface DispatcherHooks {
  /** An item's scrape is done; its result is not yet written. */
  beforeFinish?(item: ClaimedItem, outcome: ItemOutcome): Promise<void>;
  /** Inside the finishing transaction, once the item's hold is settled (job and item locked). */
  afterSettle?(item: ClaimedItem): Promise<void>;
  /** A finishing transaction has claimed the next items (its group written, nothing committed yet). */
  afterClaimInFinish?(claimed: ClaimedItem[]): Promise<void>;
  /** A hold was found due; it is not yet returned. */
  beforeHoldReturn?(due: { job_id: string; seq: number; reservation_id: string | null }): Promise<void>;
}

/**
 * The batch dispatcher of one gateway process (docs/batch.md "Dispatch"). Queued items are claimed as
 * soon as there is room: on new work in this process and whenever an item's result is written. Every
 * pass (the fallback, and how work submitted to other gateways is found): put back items of crashed
 * dispatchers, return due holds, end drained jobs, renew leases, claim up to capacity.
 * Any number of gateways may run one; PostgreSQL row locks and leases keep them apart. All its store
 * work goes through its share of the connection pool (gatedDb): items beyond it wait in this process.
 */
export function startBatchDispatcher(
  gatewayContext: GatewayContext,
  options: { owner?: string; autoStart?: boolean; hooks?: DispatcherHooks } = {},
): BatchDispatcher {
  const owner = options.owner ?? `${hostname()}:${process.pid}:${newId()}`;
  const config = gatewayContext.config;
  const hooks = options.hooks ?? {};
  const context: GatewayContext = { ...gatewayContext, db: gatedDb(gatewayContext.db, dispatcherConnections(config)) };
  const db = context.db;
  const inFlight = new Map<string, Promise<void>>();
  let stopped = false;
  let lastHousekeeping = 0;
  let lastRenewal = 0;
  /** Claimed items whose scrape has not answered yet (the rest of inFlight waits to be written). */
  let scraping = 0;

  /**
   * One claim at a time counts the free room, whether it runs on its own or inside a finishing
   * transaction: held from counting until the claimed items are in `inFlight` (or the claim is given up).
   */
  let claimHeld = false;
  const canClaim = () => !stopped && context.directory.deployedEngines().size > 0;
  const claimInto = (tx: Queryable, room: number): Promise<ClaimedItem[]> =>
    claimItems(tx, { owner, leaseMs: config.BATCH_LEASE_MS, capacity: room, releaseDelayMs: config.BATCH_HOLD_RETURN_DELAY_MS });

  /** Inside a finishing transaction: the room its group frees, and any left, claimed in the same transaction. */
  const claimNext = async (tx: Queryable, freed: number): Promise<ClaimTicket | null> => {
    // The group's items are still in inFlight until their write resolves, after the ticket is committed.
    const room = config.BATCH_DISPATCH_CAPACITY - inFlight.size + freed;
    // A dispatcher driven by hand (autoStart false, tests) claims only on tick().
    if (claimHeld || options.autoStart === false || !canClaim() || room <= 0) return null;
    claimHeld = true;
    let claimed: ClaimedItem[];
    try {
      claimed = await claimInto(tx, room);
      await hooks.afterClaimInFinish?.(claimed);
    } catch (error) {
      claimHeld = false;
      throw error;
    }
    return {
      committed: () => {
        claimHeld = false;
        for (const item of claimed) runClaimed(item);
      },
      rolledBack: () => {
        claimHeld = false;
        wake();
      },
    };
  };

  const writer = new ResultWriter({
    db, owner, releaseDelayMs: config.BATCH_HOLD_RETURN_DELAY_MS, logger: context.logger, stopping: () => stopped, running: () => scraping, claimNext, requestLog: context.requestLog,
    onWritten: (written) => countFinishedItems(context.metrics, written),
  });

  const runClaimed = (item: ClaimedItem) => {
    const key = `${item.job.id}:${item.seq}`;
    scraping += 1;
    const work = (async () => {
      const outcome = await runItem(context, item).finally(() => (scraping -= 1));
      await hooks.beforeFinish?.(item, outcome);
      await writer.write(item, outcome, hooks.afterSettle ? () => hooks.afterSettle!(item) : undefined);
    })()
      .catch((error: unknown) => context.logger.error({ err: error, job: item.job.id, seq: item.seq }, 'batch item result not written; its lease will put it back'))
      .finally(() => {
        inFlight.delete(key);
        wake();
      });
    inFlight.set(key, work);
  };

  /** One claim at a time, so two never both count the same free room; a wake during one runs another. */
  let claiming: Promise<void> | null = null;
  let claimAgain = false;
  const claimSoon = (): Promise<void> => {
    if (claiming) {
      claimAgain = true;
      return claiming;
    }
    claiming = (async () => {
      do {
        claimAgain = false;
        await claim();
      } while (claimAgain && !stopped);
    })().finally(() => {
      claiming = null;
    });
    return claiming;
  };
  // A dispatcher driven by hand (autoStart false, tests) claims only on tick().
  const wake = () => {
    if (stopped || options.autoStart === false) return;
    claimSoon().catch((error: unknown) => context.logger.warn({ err: error }, 'batch claim failed; the next pass tries again'));
  };

  const claim = async () => {
    // A gateway that has not yet heard from any worker (just started, or the fleet is down) leaves items
    // queued rather than spending their attempts on ENGINE::UNAVAILABLE.
    if (!canClaim()) return;
    if (config.BATCH_DISPATCH_CAPACITY - inFlight.size <= 0) return;
    // A finishing transaction is claiming: it wakes this dispatcher if it gives up.
    if (claimHeld) return;
    claimHeld = true;
    try {
      // Room is counted once the transaction has its connection: items that finished while it waited
      // for one are claimed for in the same statement.
      const claimed = await db.transaction(async (tx) => {
        const room = config.BATCH_DISPATCH_CAPACITY - inFlight.size;
        return room > 0 ? claimInto(tx, room) : [];
      });
      for (const item of claimed) runClaimed(item);
    } finally {
      claimHeld = false;
    }
  };

  const pass = async () => {
    await requeueCrashed();
    await returnDueHolds();
    for (const jobId of await jobsToFinalize(db)) {
      await db.transaction((tx) => finalizeJob(tx, jobId, config.BATCH_HOLD_RETURN_DELAY_MS));
    }
    if (Date.now() - lastHousekeeping >= HOUSEKEEPING_EVERY_MS) {
      lastHousekeeping = Date.now();
      await purgeExpiredResults(db);
    }
    // A quarter of a lease between renewals keeps every lease at least three quarters full (a claim starts
    // a full one); renewing every pass rewrote all running items twice a second for two-minute leases.
    if (inFlight.size > 0 && Date.now() - lastRenewal >= config.BATCH_LEASE_MS / 4) {
      await renewLeases(db, owner, config.BATCH_LEASE_MS);
      lastRenewal = Date.now();
    }
    await claimSoon();
  };

  const requeueCrashed = async () => {
    for (const item of await expiredLeases(db, SWEEP_BATCH)) {
      await db.transaction((tx) => requeueExpired(tx, item, config.BATCH_HOLD_RETURN_DELAY_MS));
    }
  };

  const returnDueHolds = async () => {
    for (const due of await dueReleases(db, SWEEP_BATCH)) {
      await hooks.beforeHoldReturn?.(due);
      await db.transaction((tx) => returnDueHold(tx, due));
    }
  };

  const periodic = startPeriodic({
    intervalMs: config.BATCH_DISPATCH_INTERVAL_MS,
    autoStart: options.autoStart,
    runAtStart: true,
    pass,
    onError: (error) => context.logger.warn({ err: error }, 'batch dispatch pass failed'),
  });

  const unsubscribe = onBatchWork(gatewayContext.db, wake);

  return {
    owner,
    tick: periodic.tick,
    wake,
    async stop(graceMs: number) {
      stopped = true;
      unsubscribe();
      writer.flushAll();
      await periodic.stop();
      await claiming?.catch(() => undefined);
      let timeout: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timeout = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.all(inFlight.values()), deadline]);
      clearTimeout(timeout);
      if (inFlight.size > 0) {
        await handBackItems(db, owner).catch((error: unknown) => context.logger.warn({ err: error }, 'handing batch items back failed'));
      }
    },
  };
}

/** Batch items are scrapes too: a finished one counts in `trawler_scrapes_total` and its charge in the credits counter (a retry is not finished). */
function countFinishedItems(metrics: GatewayMetrics, written: Array<{ outcome: ItemOutcome; chargedMicro: number }>): void {
  for (const { outcome, chargedMicro } of written) {
    const engine = outcome.engine ?? 'none';
    if (outcome.kind === 'succeeded') countFinishedScrape(metrics, engine, 'success', chargedMicro);
    else if (outcome.kind === 'failed') countFinishedScrape(metrics, engine, outcome.error?.code ?? 'ERR::INTERNAL::ERROR');
  }
}
