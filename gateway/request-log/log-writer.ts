import type { Logger } from '../../lib/log.js';
import type { Queryable } from '../../lib/store/db.js';
import { insertRequestLogs, type RequestLogRow } from '../../lib/store/request-log.js';
import type { RequestLogEntry } from '../../lib/store/request-log-entry.js';

/** Rows per statement: one JSON array, a few hundred kilobytes at most. */
const MAX_BATCH = 500;
/** Past this many unwritten entries (the store is down) new ones are still kept, with an error logged. */
const WARN_PENDING = 50_000;

export interface LogWriterOptions {
  /** How long an entry may wait for its batch: the most the stored log trails the answers. */
  flushMs: number;
}

/**
 * The request log's writer (docs/request-log.md, "Batched writes"): an answer hands its entry over
 * and goes; entries are stored in batches off the answer path. Until stored, an entry is pending
 * here and `pending()` finds it, so this gateway resolves every id it has answered with. A failed
 * batch stays pending and is tried again; `close()` writes everything before the store closes.
 */
export class RequestLogWriter {
  private readonly waiting = new Map<string, RequestLogRow>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private failures = 0;

  constructor(
    private readonly db: Queryable,
    private readonly logger: Logger,
    private readonly options: LogWriterOptions,
  ) {}

  add(entry: RequestLogEntry, organizationId: string): void {
    this.waiting.set(entry.id, { entry, organizationId });
    if (this.waiting.size === WARN_PENDING) this.logger.error({ pending: WARN_PENDING }, 'request log entries are piling up unwritten');
    // A full batch goes at once, unless the store is failing: then the retry timer paces the writes.
    if (this.waiting.size >= MAX_BATCH && this.failures === 0) void this.flush();
    else this.schedule(this.options.flushMs);
  }

  /** The entry of this id and organization while it is not yet stored. */
  pending(id: string, organizationId: string): RequestLogEntry | null {
    const row = this.waiting.get(id);
    return row && row.organizationId === organizationId ? row.entry : null;
  }

  /** Writes every entry pending now (and waits for a write under way); never throws. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.waiting.size === 0) return;
    this.writing = this.writeAll().finally(() => {
      this.writing = null;
    });
    await this.writing;
  }

  /** Stops the timer and writes what is pending, retrying a failing store a few times. */
  async close(): Promise<void> {
    this.clearTimer();
    for (let round = 0; round < 5 && this.waiting.size > 0; round += 1) {
      await this.flush();
      if (this.waiting.size > 0) await new Promise((resolve) => setTimeout(resolve, 200 * (round + 1)));
    }
    if (this.waiting.size > 0) this.logger.error({ lost: [...this.waiting.keys()] }, 'request log entries could not be written before shutdown');
  }

  private schedule(delayMs: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * Writes the entries pending when it starts. Entries added while it writes wait for the timer their
   * add() set, so a batch gathers a flush interval's answers; writing them as soon as the previous
   * statement returned would store most entries one or two to a statement (each statement has its own
   * synchronous commit and costs as much as ten rows of a full batch).
   */
  private async writeAll(): Promise<void> {
    this.clearTimer();
    const due = [...this.waiting.values()];
    for (let start = 0; start < due.length; start += MAX_BATCH) {
      const batch = due.slice(start, start + MAX_BATCH);
      try {
        await insertRequestLogs(this.db, batch);
        this.failures = 0;
        // Removed only once stored: until then a lookup still finds the entry here.
        for (const row of batch) this.waiting.delete(row.entry.id);
      } catch (error) {
        this.failures += 1;
        this.logger.error({ err: error, entries: batch.length }, 'request log write failed; will retry');
        // One by one, so an entry the store refuses as data cannot hold back the rest.
        if (this.failures < 3 || !(await this.writeOneByOne(batch))) {
          this.schedule(Math.min(5_000, this.options.flushMs * 2 ** this.failures));
          return;
        }
      }
    }
  }

  /** False when the store itself failed (the rest stays pending); only data errors drop an entry. */
  private async writeOneByOne(batch: RequestLogRow[]): Promise<boolean> {
    for (const row of batch) {
      try {
        await insertRequestLogs(this.db, [row]);
      } catch (error) {
        if (!isDataError(error)) return false;
        this.logger.error({ err: error, request_id: row.entry.id }, 'request log entry refused by the store; dropped');
      }
      this.waiting.delete(row.entry.id);
    }
    this.failures = 0;
    return true;
  }
}

/** SQLSTATE classes 22 (data exception) and 23 (integrity): the row is at fault, not the store. */
function isDataError(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  return code.startsWith('22') || code.startsWith('23');
}
