import { takeStoredHold, type CreditAccount, type Hold, type PeriodKey } from '../store/credits.js';
import type { Queryable } from '../store/db.js';
import { asError, GroupCommit, type GroupOutcome } from '../store/group-commit.js';
import { settleStored, settleStoredGroup, type StoredSettlement } from '../store/stored-settlements.js';
import type { Ledger } from './ledger.js';

/**
 * The ledger on PostgreSQL: every hold is a `credit_reservations` row (`takeStoredHold`), and the
 * settlements of this process are group-committed.
 *
 * Group commit of the settlements of holds kept as rows on PostgreSQL (docs/platform.md,
 * "Performance"): one settlement statement of this process runs at a time, and the settlements that
 * queue meanwhile go together in the next one, with no timer: alone, a settlement is written at once.
 * Each caller is answered only once its own settlement has committed (synchronously: money), so the
 * answer still says what the ledger holds. A group statement that fails (a deadlock with another
 * gateway's group over two organizations' period rows, say) changed nothing; its settlements are then
 * written one by one.
 */
export class StoredLedger implements Ledger {
  // A second settlement of the same hold waits for the next round (and finds it settled).
  private readonly commits = new GroupCommit<StoredSettlement, boolean>((group) => this.write(group), { keyOf: (settlement) => settlement.holdId });

  constructor(private readonly db: Queryable) {}

  hold(account: CreditAccount, amountMicro: number, requestId: string | null = null, now = new Date()): Promise<Hold> {
    return takeStoredHold(this.db, account, amountMicro, requestId, now);
  }

  /** True when this call settled the hold; false when it was settled already (or is no hold). */
  settle(holdId: string, chargedMicro: number, engine: string | null = null, leaseHolder: string | null = null): Promise<boolean> {
    return this.commits.submit({ holdId, chargedMicro, engine, leaseHolder });
  }

  /** Every hold is a row: a batch submission's statement checks the whole allowance. */
  holdInStore(_key: PeriodKey, _amountMicro: number, allowanceMicro: number, write: (allowanceMicro: number) => Promise<boolean>): Promise<boolean> {
    return write(allowanceMicro);
  }

  heldIn(_key: PeriodKey): { count: number; micro: number } {
    return { count: 0, micro: 0 };
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
    return group.map((settlement) => settled.has(settlement.holdId));
  }
}
