import type { ClaimedItem } from '../../lib/store/batch/leases.js';
import type { GatewayContext } from '../context.js';
import type { DispatchWaitPoints } from './dispatcher-hooks.js';
import type { ResultWriter } from './result-writer.js';
import { runItem } from './run-item.js';

export interface RunningItemsDeps {
  context: GatewayContext;
  writer: Pick<ResultWriter, 'write'>;
  /** An item has left: its result written, or given up to its lease. */
  onLeft(): void;
  waitPoints: Pick<DispatchWaitPoints, 'beforeFinish'>;
}

/**
 * The items a dispatcher holds: each scraped (gateway/batch/run-item.ts), then written by the result
 * writer, and held until that write resolves. A write that fails leaves the item to its lease.
 */
export class RunningItems {
  private readonly held = new Map<string, Promise<void>>();
  private scrapingCount = 0;

  constructor(private readonly deps: RunningItemsDeps) {}

  /** Items held: scraping, or waiting for their result to be written. */
  get size(): number {
    return this.held.size;
  }

  /** Items whose scrape has not answered yet. */
  get scraping(): number {
    return this.scrapingCount;
  }

  start(item: ClaimedItem): void {
    const { context, writer, waitPoints } = this.deps;
    const key = `${item.job.id}:${item.seq}`;
    this.scrapingCount += 1;
    const work = (async () => {
      const outcome = await runItem(context, item).finally(() => (this.scrapingCount -= 1));
      await waitPoints.beforeFinish(item, outcome);
      await writer.write(item, outcome);
    })()
      .catch((error: unknown) => context.logger.error({ err: error, job: item.job.id, seq: item.seq }, 'batch item result not written; its lease will put it back'))
      .finally(() => {
        this.held.delete(key);
        this.deps.onLeft();
      });
    this.held.set(key, work);
  }

  /** Waits up to `graceMs` for every held item to leave; true when none is left. */
  async drain(graceMs: number): Promise<boolean> {
    let timeout: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timeout = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all(this.held.values()), deadline]);
    clearTimeout(timeout);
    return this.held.size === 0;
  }
}
