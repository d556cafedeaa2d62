import type { Queryable } from './db.js';
import { asError, GroupCommit, type GroupOutcome } from './group-commit.js';
import { settleStored, settleStoredGroup, type StoredSettlement } from './stored-settlements.js';

/**
 * Group commit of the settlements of holds kept as rows on PostgreSQL (docs/platform.md,
 * "Performance"): one settlement statement of this process runs at a time, and the settlements that
 * queue meanwhile go together in the next one, with no timer: alone, a settlement is written at once.
 * Each caller is answered only once its own settlement has committed (synchronously: money), so the
 * answer still says what the ledger holds. A group statement that fails (a deadlock with another
 * gateway's group over two organizations' period rows, say) changed nothing; its settlements are then
 * written one by one.
 */
export class SettlementGroups {
  // A second settlement of the same hold waits for the next round (and finds it settled).
  private readonly commits = new GroupCommit<StoredSettlement, boolean>((group) => this.write(group), { keyOf: (settlement) => settlement.reservationId });

  constructor(private readonly db: Queryable) {}

  /** True when this call settled the hold; false when it was settled already (or is no hold). */
  settle(settlement: StoredSettlement): Promise<boolean> {
    return this.commits.submit(settlement);
  }

  /** Resolves once every settlement asked for so far is written (before the pool closes). */
  drain(): Promise<void> {
    return this.commits.drain();
  }

  private async write(group: StoredSettlement[]): Promise<Array<GroupOutcome<boolean>>> {
    if (group.length === 1) return [await settleStored(this.db, group[0])];
    let settled: Set<string>;
    try {
      settled = await settleStoredGroup(this.db, group);
    } catch {
      return Promise.all(group.map((settlement) => settleStored(this.db, settlement).catch(asError)));
    }
    return group.map((settlement) => settled.has(settlement.reservationId));
  }
}
