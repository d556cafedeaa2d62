import type { Queryable } from './db.js';
import { settleStored, settleStoredGroup, type StoredSettlement } from './stored-settlements.js';

interface Queued extends StoredSettlement {
  done: (settled: boolean | Error) => void;
}

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
  private queued: Queued[] = [];
  private writing: Promise<void> | null = null;

  constructor(private readonly db: Queryable) {}

  /** True when this call settled the hold; false when it was settled already (or is no hold). */
  settle(settlement: StoredSettlement): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queued.push({ ...settlement, done: (settled) => (settled instanceof Error ? reject(settled) : resolve(settled)) });
      this.writing ??= this.writeQueued();
    });
  }

  /** Resolves once every settlement asked for so far is written (before the pool closes). */
  async drain(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async writeQueued(): Promise<void> {
    while (this.queued.length > 0) {
      const group = this.takeGroup();
      if (group.length === 1) await this.writeOne(group[0]);
      else await this.writeGroup(group);
    }
    this.writing = null;
  }

  /** Every queued settlement of a distinct hold; a second one of the same hold waits for the next round (and finds it settled). */
  private takeGroup(): Queued[] {
    const ids = new Set<string>();
    const group: Queued[] = [];
    const later: Queued[] = [];
    for (const settlement of this.queued) {
      if (ids.has(settlement.reservationId)) later.push(settlement);
      else {
        ids.add(settlement.reservationId);
        group.push(settlement);
      }
    }
    this.queued = later;
    return group;
  }

  private async writeOne(settlement: Queued): Promise<void> {
    try {
      settlement.done(await settleStored(this.db, settlement));
    } catch (error) {
      settlement.done(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private async writeGroup(group: Queued[]): Promise<void> {
    let settled: Set<string>;
    try {
      settled = await settleStoredGroup(this.db, group);
    } catch {
      await Promise.all(group.map((settlement) => this.writeOne(settlement)));
      return;
    }
    for (const settlement of group) settlement.done(settled.has(settlement.reservationId));
  }
}
