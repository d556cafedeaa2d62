import type { KeyEnvironment } from '../apikeys.js';
import type { Queryable } from './db.js';
import { GroupCommit } from './group-commit.js';

/** One allowance month of one organization's ledger (live or test). */
export interface PeriodKey {
  organizationId: string;
  periodStart: string;
  environment: KeyEnvironment;
}

export interface MemoryHold extends PeriodKey {
  id: string;
  projectId: string;
  amountMicro: number;
  requestId: string | null;
  createdAt: Date;
}

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

interface Settlement {
  hold: MemoryHold;
  chargedMicro: number;
  engine: string | null;
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
export class MemoryHolds {
  private readonly periods = new Map<string, Period>();
  private readonly open = new Map<string, MemoryHold>();
  // PGlite runs a statement on this thread: the write waits for the I/O callbacks ready now, so
  // settlements can queue behind it.
  private readonly settlements = new GroupCommit<Settlement, boolean>((group) => this.writeGroup(group), { startAfterIo: true });

  constructor(private readonly db: Queryable) {}

  /** Holds `hold.amountMicro` if it fits the allowance; false when it does not (the caller answers 402). */
  async hold(hold: MemoryHold, allowanceMicro: number): Promise<boolean> {
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
  settle(id: string, chargedMicro: number, engine: string | null): Promise<boolean> | null {
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
        await this.db.query(
          `INSERT INTO credit_periods (organization_id, period_start, environment) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
          [key.organizationId, key.periodStart, key.environment],
          { name: 'credits_period_row' },
        );
        const result = await this.db.query<{ used: number }>(
          `SELECT spent_micro + reserved_micro AS used FROM credit_period_totals WHERE organization_id = $1 AND period_start = $2 AND environment = $3`,
          [key.organizationId, key.periodStart, key.environment],
          { name: 'credits_period_used' },
        );
        period.storeUsed = Number(result.rows[0]?.used ?? 0) + (period.added - addedBefore);
      } finally {
        period.reloading = null;
      }
    })();
    return period.reloading;
  }

  /** The settlements queued meanwhile, in one statement; their holds leave the period whether it was written or not. */
  private async writeGroup(group: Settlement[]): Promise<boolean[]> {
    let written = false;
    try {
      await writeSettled(this.db, group);
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

/** The settled reservation rows and their periods' spent, in one statement. */
async function writeSettled(db: Queryable, group: Settlement[]): Promise<void> {
  if (group.length === 1) return writeOneSettled(db, group[0]);
  const rows = group.map(({ hold, chargedMicro, engine }) => ({
    id: hold.id,
    organization_id: hold.organizationId,
    project_id: hold.projectId,
    period_start: hold.periodStart,
    environment: hold.environment,
    amount: hold.amountMicro,
    charged: chargedMicro,
    engine,
    request_id: hold.requestId,
    created_at: hold.createdAt.toISOString(),
  }));
  await db.query(
    `WITH v AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(id text, organization_id text, project_id text, period_start date,
         environment text, amount bigint, charged bigint, engine text, request_id text, created_at timestamptz)),
     settled AS (
       INSERT INTO credit_reservations (id, organization_id, project_id, period_start, environment, amount_micro, request_id, created_at, settled_at, charged_micro, engine)
       SELECT id, organization_id, project_id, period_start, environment, amount, request_id, created_at, now(), charged, engine FROM v
       RETURNING organization_id, period_start, environment, charged_micro),
     totals AS (
       SELECT organization_id, period_start, environment, sum(charged_micro) AS charged FROM settled GROUP BY organization_id, period_start, environment)
     UPDATE credit_periods p SET spent_micro = p.spent_micro + t.charged
       FROM totals t
      WHERE p.organization_id = t.organization_id AND p.period_start = t.period_start AND p.environment = t.environment`,
    [JSON.stringify(rows)],
    { name: 'credits_settle_memory' },
  );
}

/** A settlement alone (no load): the same statement with plain parameters, cheaper than the JSON form. */
async function writeOneSettled(db: Queryable, { hold, chargedMicro, engine }: Settlement): Promise<void> {
  await db.query(
    `WITH settled AS (
       INSERT INTO credit_reservations (id, organization_id, project_id, period_start, environment, amount_micro, request_id, created_at, settled_at, charged_micro, engine)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now(), $9, $10))
     UPDATE credit_periods SET spent_micro = spent_micro + $9
      WHERE organization_id = $2 AND period_start = $4 AND environment = $5`,
    [hold.id, hold.organizationId, hold.projectId, hold.periodStart, hold.environment, hold.amountMicro, hold.requestId, hold.createdAt, chargedMicro, engine],
    { name: 'credits_settle_memory_one' },
  );
}
