import type { Logger } from '../../lib/log.js';
import type { ClaimedItem } from '../../lib/store/batch/leases.js';
import type { Db, Queryable } from '../../lib/store/db.js';
import { insertRequestLogs, type RequestLogRow } from '../../lib/store/request-log.js';
import type { RequestLogEntry } from '../../lib/store/request-log-entry.js';
import { finishItems, type ItemOutcome } from './lifecycle.js';

const FINISH_RETRY_FIRST_MS = 50;
const FINISH_RETRY_MAX_MS = 2000;
/** Items per finishing transaction; bodies travel in the statement, so the group stays bounded. */
export const MAX_RESULTS_PER_WRITE = 100;
/**
 * How long a result may wait for others of its job while more of the job's items are still running.
 * Short next to a scrape, long enough that a busy dispatcher writes tens of results per transaction
 * instead of one (docs/batch.md "Results written in batches").
 */
export const RESULT_LINGER_MS = 50;

interface Pending {
  item: ClaimedItem;
  outcome: ItemOutcome;
  resolve(): void;
  reject(error: unknown): void;
}

export interface ResultWriterOptions {
  db: Db;
  owner: string;
  releaseDelayMs: number;
  logger: Logger;
  /** True once the dispatcher stops: a refused write is then given up (the item goes back to the queue). */
  stopping(): boolean;
  /** Items of this dispatcher still being scraped: while there are none, a result is written at once. */
  running(): number;
  /** The request log's own writer: takes the entries of a group whose finishing transaction failed. */
  requestLog: { add(entry: RequestLogEntry, organizationId: string): void };
  /**
   * Claims the next items inside the finishing transaction, once the group is written (`freed`: the
   * group's items, whose room it gives back): one transaction per group instead of a finish and a
   * claim. Only on a group's first attempt, so a claim that fails never holds a result back.
   */
  claimNext?(tx: Queryable, freed: number): Promise<ClaimTicket | null>;
  /** Told, once a group committed, each written item's outcome and what it was charged (micro-credits). */
  onWritten?(written: Array<{ outcome: ItemOutcome; chargedMicro: number }>): void;
  /** Waited for inside the finishing transaction, once an item's hold is settled (gateway/batch/dispatcher-hooks.ts). */
  afterSettle(item: ClaimedItem): Promise<void>;
}

/** Items claimed inside a finishing transaction: started once it commits, given up when it rolls back. */
export interface ClaimTicket {
  committed(): void;
  rolledBack(): void;
}

/**
 * Writes finished items in batches (docs/batch.md "Results written in batches"): one finishing
 * transaction per job at a time, taking every result of that job that is ready when it starts. No timer
 * holds a result back: a lone result is written at once, and results arriving while a write waits or
 * runs go together. Until its write commits, an item stays running under this
 * dispatcher's renewed lease, so a crash in between leaves it to be re-run, never lost or billed twice.
 */
export class ResultWriter {
  private readonly pending = new Map<string, Pending[]>();
  private readonly writing = new Set<string>();
  private readonly lingering = new Map<string, NodeJS.Timeout>();

  constructor(private readonly options: ResultWriterOptions) {}

  /** Resolves once the result is stored (or fenced off: another dispatcher owns the item now). */
  write(item: ClaimedItem, outcome: ItemOutcome): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const jobId = item.job.id;
      const queue = this.pending.get(jobId) ?? [];
      queue.push({ item, outcome, resolve, reject });
      this.pending.set(jobId, queue);
      this.schedule(jobId, queue.length);
    });
  }

  /** Written at once when nothing else is coming or the group is full, else after a short linger. */
  private schedule(jobId: string, queued: number): void {
    if (this.writing.has(jobId)) return;
    const now = queued >= MAX_RESULTS_PER_WRITE || this.options.running() === 0 || this.options.stopping();
    const timer = this.lingering.get(jobId);
    if (timer && !now) return;
    if (timer) clearTimeout(timer);
    this.lingering.delete(jobId);
    if (now) void this.drain(jobId);
    else this.lingering.set(jobId, setTimeout(() => {
      this.lingering.delete(jobId);
      void this.drain(jobId);
    }, RESULT_LINGER_MS));
  }

  /** Writes whatever lingers now (a stopping dispatcher). */
  flushAll(): void {
    for (const [jobId, timer] of this.lingering) {
      clearTimeout(timer);
      this.lingering.delete(jobId);
      void this.drain(jobId);
    }
  }

  private async drain(jobId: string): Promise<void> {
    this.writing.add(jobId);
    try {
      while ((this.pending.get(jobId)?.length ?? 0) > 0) await this.writeGroup(jobId);
    } finally {
      // No await between the last look at the queue and here: a result added meanwhile starts a drain.
      this.writing.delete(jobId);
    }
  }

  /**
   * One finishing transaction. The group is taken once the transaction has its connection, so results
   * that finish while it waits for one (the store is the busy part) join it. A write the store refuses
   * (a lost connection, a deadlock another transaction caused) is tried again with the same group:
   * a scrape that answered is never dropped for a transient store error.
   */
  private async writeGroup(jobId: string): Promise<void> {
    const { db, owner, releaseDelayMs, logger } = this.options;
    // Filled inside the transaction callback (a holder, so the types survive the closure).
    const taken: { group: Pending[] | null; ticket: ClaimTicket | null; logHandedOff: boolean; written: Map<number, number> } = {
      group: null, ticket: null, logHandedOff: false, written: new Map(),
    };
    /**
     * The group's request log entries go to the request log's writer instead once a finishing
     * transaction failed: it drops an entry the store refuses as data, so no entry holds a result back.
     */
    const handOffLog = () => {
      if (taken.logHandedOff || !taken.group) return;
      taken.logHandedOff = true;
      for (const row of logRowsOf(taken.group)) this.options.requestLog.add(row.entry, row.organizationId);
    };
    for (let wait = FINISH_RETRY_FIRST_MS, attempt = 0; ; wait = Math.min(wait * 2, FINISH_RETRY_MAX_MS), attempt += 1) {
      try {
        await db.transaction(async (tx) => {
          const group = (taken.group ??= this.take(jobId));
          // Stored with the results: one statement inside this transaction, not one more of its own.
          if (!taken.logHandedOff) await insertRequestLogs(tx, logRowsOf(group));
          const items = group.map((entry) => ({ seq: entry.item.seq, requestId: entry.item.requestId, outcome: entry.outcome, afterSettle: () => this.options.afterSettle(entry.item) }));
          taken.written = await finishItems(tx, { jobId, owner, releaseDelayMs }, items);
          if (attempt === 0 && this.options.claimNext) taken.ticket = await this.options.claimNext(tx, group.length);
        });
        // Claimed items start before the group's items leave the dispatcher's count, so a wake-up
        // from those never claims the same room again.
        taken.ticket?.committed();
        const group = taken.group ?? [];
        this.options.onWritten?.(group.flatMap((entry) => {
          const chargedMicro = taken.written.get(entry.item.seq);
          return chargedMicro === undefined ? [] : [{ outcome: entry.outcome, chargedMicro }];
        }));
        for (const entry of group) entry.resolve();
        return;
      } catch (error) {
        taken.ticket?.rolledBack();
        taken.ticket = null;
        if (this.options.stopping()) {
          taken.group ??= this.take(jobId);
          handOffLog();
          for (const entry of taken.group) entry.reject(error);
          return;
        }
        handOffLog();
        logger.warn({ err: error, job: jobId, items: taken.group?.length ?? 0, retryInMs: wait }, 'writing batch item results failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  private take(jobId: string): Pending[] {
    const queue = this.pending.get(jobId) ?? [];
    const group = queue.splice(0, MAX_RESULTS_PER_WRITE);
    if (queue.length === 0) this.pending.delete(jobId);
    return group;
  }
}

function logRowsOf(group: Pending[]): RequestLogRow[] {
  return group.flatMap((entry) => (entry.outcome.log ? [entry.outcome.log] : []));
}
