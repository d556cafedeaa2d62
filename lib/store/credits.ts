import { newId, type KeyEnvironment } from '../ids.js';
import { ServiceError } from '../errors/index.js';
import type { Db, Queryable } from './db.js';
import { allowancePeriod, isoDate } from './allowance-period.js';

export interface CreditAccount {
  organizationId: string;
  projectId: string;
  organizationCreatedAt: Date;
  monthlyCreditsMicro: number;
  /** Test keys hold and spend against a ledger of their own, never the live one (SPEC.md Authentication 3). */
  environment: KeyEnvironment;
}

export interface Reservation {
  id: string;
  amountMicro: number;
}

/**
 * Holds `amountMicro` against the allowance month in one conditional UPDATE, so concurrent holds can
 * never together pass the allowance. Throws 402 QUOTA_EXCEEDED naming the reset date.
 */
export async function reserveCredits(db: Db, account: CreditAccount, amountMicro: number, now = new Date()): Promise<Reservation> {
  const period = allowancePeriod(account.organizationCreatedAt, now);
  const start = isoDate(period.start);
  const id = newId();
  const held = await db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO credit_periods (organization_id, period_start, environment) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING`,
      [account.organizationId, start, account.environment],
    );
    const update = await tx.query(
      `UPDATE credit_periods SET reserved_micro = reserved_micro + $4
        WHERE organization_id = $1 AND period_start = $2 AND environment = $3
          AND spent_micro + reserved_micro + $4 <= $5`,
      [account.organizationId, start, account.environment, amountMicro, account.monthlyCreditsMicro],
    );
    if (update.rowCount === 0) return false;
    await tx.query(
      `INSERT INTO credit_reservations (id, organization_id, project_id, period_start, environment, amount_micro)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, account.organizationId, account.projectId, start, account.environment, amountMicro],
    );
    return true;
  });
  if (!held) {
    throw new ServiceError(
      'ERR::LIMIT::QUOTA_EXCEEDED',
      `Monthly credit allowance exhausted; it resets on ${period.end.toISOString()}`,
    );
  }
  return { id, amountMicro };
}

/**
 * Releases the hold and charges `chargedMicro` (at most the hold). Settling twice is a no-op, so a
 * retried settlement never bills twice.
 */
export async function settleReservation(db: Db, reservationId: string, chargedMicro: number): Promise<boolean> {
  return db.transaction(async (tx) => settleIn(tx, reservationId, chargedMicro));
}

async function settleIn(tx: Queryable, reservationId: string, chargedMicro: number): Promise<boolean> {
  const claimed = await tx.query<{ organization_id: string; period_start: string; environment: string; amount_micro: number }>(
    `UPDATE credit_reservations SET settled_at = now(), charged_micro = LEAST($2::bigint, amount_micro)
      WHERE id = $1 AND settled_at IS NULL
      RETURNING organization_id, period_start::text AS period_start, environment, amount_micro`,
    [reservationId, chargedMicro],
  );
  const row = claimed.rows[0];
  if (!row) return false;
  const charged = Math.min(chargedMicro, Number(row.amount_micro));
  await tx.query(
    `UPDATE credit_periods SET reserved_micro = reserved_micro - $4, spent_micro = spent_micro + $5
      WHERE organization_id = $1 AND period_start = $2 AND environment = $3`,
    [row.organization_id, row.period_start, row.environment, Number(row.amount_micro), charged],
  );
  return true;
}

/** Holds a crash left behind are released (charged 0) after `olderThanMs`: a crash never bills. */
export async function releaseStaleReservations(db: Db, olderThanMs: number): Promise<number> {
  const stale = await db.query<{ id: string }>(
    `SELECT id FROM credit_reservations WHERE settled_at IS NULL AND created_at < now() - ($1::bigint * interval '1 millisecond')`,
    [olderThanMs],
  );
  let released = 0;
  for (const { id } of stale.rows) if (await settleReservation(db, id, 0)) released += 1;
  return released;
}

export interface PeriodUsage {
  periodStart: string;
  periodEnd: string;
  allowanceMicro: number;
  reservedMicro: number;
  spentMicro: number;
}

export async function periodUsage(db: Queryable, account: CreditAccount, now = new Date()): Promise<PeriodUsage> {
  const period = allowancePeriod(account.organizationCreatedAt, now);
  const result = await db.query<{ reserved_micro: number; spent_micro: number }>(
    `SELECT reserved_micro, spent_micro FROM credit_periods WHERE organization_id = $1 AND period_start = $2 AND environment = $3`,
    [account.organizationId, isoDate(period.start), account.environment],
  );
  const row = result.rows[0];
  return {
    periodStart: period.start.toISOString(),
    periodEnd: period.end.toISOString(),
    allowanceMicro: account.monthlyCreditsMicro,
    reservedMicro: Number(row?.reserved_micro ?? 0),
    spentMicro: Number(row?.spent_micro ?? 0),
  };
}
