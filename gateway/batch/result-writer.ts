import type { Logger } from '../../lib/log.js';
import type { ClaimedItem } from '../../lib/store/batch/leases.js';
import type { Db } from '../../lib/store/db.js';
import { finishItems, type ItemOutcome } from './lifecycle.js';

const FINISH_RETRY_FIRST_MS = 50;
const FINISH_RETRY_MAX_MS = 2000;
/** Items per finishing transaction; bodies travel in the statement, so the group stays bounded. */
export const MAX_RESULTS_PER_WRITE = 100;

interface Pending {
  item: ClaimedItem;
  outcome: ItemOutcome;
  afterSettle?: () => Promise<void>;
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
}

/**
 * Writes finished items in batches (docs/batch.md "Results written in batches"): one finishing
 * transaction per job at a time, taking every result of that job that finished meanwhile. No timer
 * holds a result back: a lone result is written at once, and results arriving while a write is under
 * way go together in the next one. Until its write commits, an item stays running under this
 * dispatcher's renewed lease, so a crash in between leaves it to be re-run, never lost or billed twice.
 */
export class ResultWriter {
  private readonly pending = new Map<string, Pending[]>();
  private readonly writing = new Set<string>();

  constructor(private readonly options: ResultWriterOptions) {}

  /** Resolves once the result is stored (or fenced off: another dispatcher owns the item now). */
  write(item: ClaimedItem, outcome: ItemOutcome, afterSettle?: () => Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const jobId = item.job.id;
      const queue = this.pending.get(jobId) ?? [];
      queue.push({ item, outcome, afterSettle, resolve, reject });
      this.pending.set(jobId, queue);
      if (!this.writing.has(jobId)) void this.drain(jobId);
    });
  }

  private async drain(jobId: string): Promise<void> {
    this.writing.add(jobId);
    try {
      for (let queue = this.pending.get(jobId); queue && queue.length > 0; queue = this.pending.get(jobId)) {
        const group = queue.splice(0, MAX_RESULTS_PER_WRITE);
        if (queue.length === 0) this.pending.delete(jobId);
        try {
          await this.writeGroup(jobId, group);
          for (const entry of group) entry.resolve();
        } catch (error) {
          for (const entry of group) entry.reject(error);
        }
      }
    } finally {
      // No await between the last look at the queue and here: a result added meanwhile starts a drain.
      this.writing.delete(jobId);
    }
  }

  /**
   * Retries while the store refuses (a lost connection, a deadlock another transaction caused): a
   * scrape that answered is never dropped for a transient store error.
   */
  private async writeGroup(jobId: string, group: Pending[]): Promise<void> {
    const { db, owner, releaseDelayMs, logger } = this.options;
    const items = group.map((entry) => ({ seq: entry.item.seq, requestId: entry.item.requestId, outcome: entry.outcome, afterSettle: entry.afterSettle }));
    for (let wait = FINISH_RETRY_FIRST_MS; ; wait = Math.min(wait * 2, FINISH_RETRY_MAX_MS)) {
      try {
        await db.transaction((tx) => finishItems(tx, { jobId, owner, releaseDelayMs }, items));
        return;
      } catch (error) {
        if (this.options.stopping()) throw error;
        logger.warn({ err: error, job: jobId, items: items.length, retryInMs: wait }, 'writing batch item results failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }
}
