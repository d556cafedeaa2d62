import { hostname } from 'node:os';
import { newId } from '../../lib/ids.js';
import { handBackItems } from '../../lib/store/batch/outcomes.js';
import { gatedDb } from '../../lib/store/gated-db.js';
import { dispatcherConnections } from '../../lib/store/pool-sizing.js';
import type { GatewayContext } from '../context.js';
import { countFinishedScrape, type GatewayMetrics } from '../metrics.js';
import { startPeriodic } from '../periodic.js';
import { dispatchPass } from './dispatch-pass.js';
import { waitPointsOf, type DispatcherHooks } from './dispatcher-hooks.js';
import { ItemClaims } from './item-claims.js';
import type { ItemOutcome } from './lifecycle.js';
import { ResultWriter } from './result-writer.js';
import { RunningItems } from './running-items.js';
import { onBatchWork } from './work-signal.js';

export interface BatchDispatcher {
  readonly owner: string;
  /** Runs one pass now (tests and the timer use it). */
  tick(): Promise<void>;
  /** Claims queued items now, up to capacity, without waiting for the next pass. */
  wake(): void;
  /** Stops claiming; waits up to `graceMs` for running items, then hands the rest back to the queue. */
  stop(graceMs: number): Promise<void>;
}

export interface BatchDispatcherOptions {
  /** The lease owner's name (default: host, process and a fresh id). */
  owner?: string;
  /**
   * 'timer' (a gateway's): a pass every BATCH_DISPATCH_INTERVAL_MS, and claims on new work and on every
   * written result. 'tick': passes, and so claims, only when the caller runs `tick()` (a replica driven
   * step by step). Default 'timer'.
   */
  driven?: 'timer' | 'tick';
  /** Points where the dispatcher waits for its caller (gateway/batch/dispatcher-hooks.ts); none by default. */
  hooks?: DispatcherHooks;
}

/**
 * The batch dispatcher of one gateway process (docs/batch.md "Dispatch"): its pass (dispatch-pass.ts),
 * its claims (item-claims.ts), the items it holds (running-items.ts) and their results' writer
 * (result-writer.ts), wired together. Queued items are claimed as soon as there is room: on new work in
 * this process and whenever an item's result is written, and on every pass.
 * Any number of gateways may run one; PostgreSQL row locks and leases keep them apart. All its store
 * work goes through its share of the connection pool (gatedDb): items beyond it wait in this process.
 */
export function startBatchDispatcher(gatewayContext: GatewayContext, options: BatchDispatcherOptions = {}): BatchDispatcher {
  const owner = options.owner ?? `${hostname()}:${process.pid}:${newId()}`;
  const byTimer = (options.driven ?? 'timer') === 'timer';
  const config = gatewayContext.config;
  const waitPoints = waitPointsOf(options.hooks);
  const context: GatewayContext = { ...gatewayContext, db: gatedDb(gatewayContext.db, dispatcherConnections(config)) };
  const db = context.db;
  let stopped = false;

  const claims: ItemClaims = new ItemClaims({
    db, owner, config, waitPoints,
    canClaim: () => !stopped && context.directory.deployedEngines().size > 0,
    held: () => items.size,
    start: (item) => items.start(item),
    wake: () => wake(),
  });
  const writer = new ResultWriter({
    db, owner, releaseDelayMs: config.BATCH_HOLD_RETURN_DELAY_MS, logger: context.logger, requestLog: context.requestLog,
    stopping: () => stopped,
    running: () => items.scraping,
    // A dispatcher driven by tick() claims only then, never inside a finishing transaction.
    claimNext: byTimer ? (tx, freed) => claims.inFinish(tx, freed) : undefined,
    onWritten: (written) => countFinishedItems(context.metrics, written),
    afterSettle: waitPoints.afterSettle,
  });
  const items: RunningItems = new RunningItems({ context, writer, waitPoints, onLeft: () => wake() });

  const claimNow = () => {
    if (stopped) return;
    claims.soon().catch((error: unknown) => context.logger.warn({ err: error }, 'batch claim failed; the next pass tries again'));
  };
  const wake = byTimer ? claimNow : () => undefined;

  const periodic = startPeriodic({
    intervalMs: config.BATCH_DISPATCH_INTERVAL_MS,
    autoStart: byTimer,
    runAtStart: true,
    pass: dispatchPass({ db, owner, config, waitPoints, held: () => items.size, claim: () => claims.soon() }),
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
      await claims.underWay?.catch(() => undefined);
      if (!(await items.drain(graceMs))) {
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
