import { newId } from '../ids.js';
import { allowancePeriod, isoDate } from '../store/allowance-period.js';
import { createPeriodRow, periodUsedMicro, quotaExceeded, type CreditAccount, type Hold, type PeriodKey } from '../store/credits.js';
import type { Queryable } from '../store/db.js';
import { GroupCommit } from '../store/group-commit.js';
import { writeSettledHolds, type MemoryHold, type MemorySettlement } from '../store/memory-hold-rows.js';
import { settleStored } from '../store/stored-settlements.js';
import type { Ledger } from './ledger.js';

interface Period {
  /** spent + reserved of the period row as last known; never below the row's value (see `reload`). */
  storeUsed: number | null;
  /** Open holds kept here, not yet in the store. */
  memoryHeld: number;
  memoryOpen: number;
  /** Store holds (batch submissions) whose statement has not answered yet. */
  pendingStore: number;
  /** Every increase of spent + reserved applied to `storeUsed` since start: what a reload must add back. */
  added: number;
  reloading: Promise<void> | null;
}

/**
 * Scrape credit holds of the embedded store (PGlite), kept in the memory of the one process that owns
 * it (the data directory is locked to it): a hold costs no statement, and its settlement writes the
 * reservation row already settled and moves the period's spent, group-committed with the settlements
 * that queued while the previous write ran (docs/platform.md, "Billing" and "Performance"). A crash
 * loses the open holds and so never bills.
 *
 * The allowance is checked exactly against the period row's spent + reserved (the store's holds:
 * batch submissions) plus the holds kept here. The row's figure is cached: it only grows through
 * holds and settlements that pass through here (`holdInStore`, `settle`), which add to the cache, and
 * shrinks through settlements of store holds (and batch submissions rolled back after their hold),
 * which the cache does not see, so the cache never undercounts; a hold that does not fit by the cache
 * reads the row again before refusing.
 */
export class MemoryLedger implements Ledger {
  private readonly periods = new Map<string, Period>();
  private readonly open = new Map<string, MemoryHold>();
  // PGlite runs a statement on this thread: the write waits for the I/O callbacks ready now, so
  // settlements can queue behind it.
  private readonly settlements = new GroupCommit<MemorySettlement, boolean>((group) => this.writeGroup(group), { startAfterIo: true });

  constructor(private readonly db: Queryable) {}

  /** Holds `amountMicro` against the allowance month, or throws 402 QUOTA_EXCEEDED naming the reset date. */
  async hold(account: CreditAccount, amountMicro: number, requestId: string | null = null, now = new Date()): Promise<Hold> {
    const period = allowancePeriod(account.organizationCreatedAt, now);
    const hold = {
      id: newId(),
      organizationId: account.organizationId,
      periodStart: isoDate(period.start),
      environment: account.environment,
      projectId: account.projectId,
      amountMicro,
      requestId,
      createdAt: now,
    };
    if (!(await this.holdInMemory(hold, account.monthlyCreditsMicro))) throw quotaExceeded(period.end);
    return { id: hold.id, amountMicro };
  }

  /** A hold kept here is written settled, group-committed; any other (a batch item's) is a stored hold. */
  settle(holdId: string, chargedMicro: number, engine: string | null = null, leaseHolder: string | null = null): Promise<boolean> {
    return this.settleInMemory(holdId, chargedMicro, engine) ?? settleStored(this.db, { holdId, chargedMicro, engine, leaseHolder });
  }

  /** Holds `hold.amountMicro` if it fits the allowance; false when it does not (the caller answers 402). */
  async holdInMemory(hold: MemoryHold, allowanceMicro: number): Promise<boolean> {
    const period = this.period(hold);
    if (!this.fits(period, hold.amountMicro, allowanceMicro)) {
      await this.reload(hold, period);
      if (!this.fits(period, hold.amountMicro, allowanceMicro)) return false;
    }
    period.memoryHeld += hold.amountMicro;
    period.memoryOpen += 1;
    this.open.set(hold.id, hold);
    return true;
  }

  /**
   * Runs a store hold of `amountMicro` (a batch submission) against the allowance less the holds kept
   * here: `write` gets the allowance its statement must check. Holds taken here meanwhile count it.
   */
  async holdInStore(key: PeriodKey, amountMicro: number, allowanceMicro: number, write: (allowanceMicro: number) => Promise<boolean>): Promise<boolean> {
    const period = this.period(key);
    const memoryHeld = period.memoryHeld;
    period.pendingStore += amountMicro;
    let held = false;
    try {
      held = await write(allowanceMicro - memoryHeld);
      return held;
    } finally {
      period.pendingStore -= amountMicro;
      if (held) this.grow(period, amountMicro);
    }
  }

  isOpen(id: string): boolean {
    return this.open.has(id);
  }

  /**
   * Settles an open hold kept here: resolves true once its row (settled, charged at most the hold) and
   * the period's spent are committed; rejects when that write failed (nothing was charged). Null when
   * `id` is no open hold of this process (settled already, or a store hold).
   */
  settleInMemory(id: string, chargedMicro: number, engine: string | null): Promise<boolean> | null {
    const hold = this.open.get(id);
    if (!hold) return null;
    this.open.delete(id);
    return this.settlements.submit({ hold, chargedMicro: Math.min(chargedMicro, hold.amountMicro), engine });
  }

  /** Open holds kept here in one period: what GET /v1/usage adds to the row's reserved figure. */
  heldIn(key: PeriodKey): { count: number; micro: number } {
    const period = this.periods.get(keyOf(key));
    return { count: period?.memoryOpen ?? 0, micro: period?.memoryHeld ?? 0 };
  }

  /** Resolves once every settlement asked for so far is written (before the store closes). */
  drain(): Promise<void> {
    return this.settlements.drain();
  }

  private fits(period: Period, amountMicro: number, allowanceMicro: number): boolean {
    if (period.storeUsed === null) return false;
    return period.storeUsed + period.pendingStore + period.memoryHeld + amountMicro <= allowanceMicro;
  }

  private period(key: PeriodKey): Period {
    const id = keyOf(key);
    let period = this.periods.get(id);
    if (!period) {
      period = { storeUsed: null, memoryHeld: 0, memoryOpen: 0, pendingStore: 0, added: 0, reloading: null };
      this.periods.set(id, period);
    }
    return period;
  }

  private grow(period: Period, micro: number): void {
    period.added += micro;
    if (period.storeUsed !== null) period.storeUsed += micro;
  }

  /**
   * Reads spent + reserved again (creating the row on a period's first hold). Increases applied while
   * the read was out are added back: one that the read already saw is then counted twice, which only
   * errs towards refusing, and the next reload corrects it.
   */
  private reload(key: PeriodKey, period: Period): Promise<void> {
    period.reloading ??= (async () => {
      const addedBefore = period.added;
      try {
        await createPeriodRow(this.db, key);
        period.storeUsed = (await periodUsedMicro(this.db, key)) + (period.added - addedBefore);
      } finally {
        period.reloading = null;
      }
    })();
    return period.reloading;
  }

  /** The settlements queued meanwhile, in one statement; their holds leave the period whether it was written or not. */
  private async writeGroup(group: MemorySettlement[]): Promise<boolean[]> {
    let written = false;
    try {
      await writeSettledHolds(this.db, group);
      written = true;
    } finally {
      for (const { hold, chargedMicro } of group) {
        const period = this.period(hold);
        period.memoryHeld -= hold.amountMicro;
        period.memoryOpen -= 1;
        if (written) this.grow(period, chargedMicro);
      }
    }
    return group.map(() => true);
  }
}

function keyOf(key: PeriodKey): string {
  return `${key.organizationId}\u0000${key.periodStart}\u0000${key.environment}`;
}
