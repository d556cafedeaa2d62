import { newId } from '../ids.js';
import { type KeyEnvironment } from '../apikeys.js';
import { ServiceError } from '../errors/index.js';
import type { Db, Queryable } from './db.js';
import { allowancePeriod, isoDate } from './allowance-period.js';
import { fitsAllowance } from './settled-stripes.js';
import { settleStored } from './stored-settlements.js';

export interface CreditAccount {
  organizationId: string;
  projectId: string;
  organizationCreatedAt: Date;
  monthlyCreditsMicro: number;
  /** Test keys hold and spend against a ledger of their own, never the live one (docs/api-reference.md "Authentication" 3). */
  environment: KeyEnvironment;
}

/**
 * The allowance of one ledger: the organization's own for live; for test, TEST_MONTHLY_CREDITS, the
 * same for every organization, so a test key never has a second live-sized allowance.
 */
export function ledgerAllowanceMicro(organizationMonthlyMicro: number, environment: KeyEnvironment, testMonthlyCredits: number): number {
  return environment === 'live' ? Number(organizationMonthlyMicro) : testMonthlyCredits * 1_000_000;
}

export interface Reservation {
  id: string;
  amountMicro: number;
}

/**
 * Holds `amountMicro` against the allowance month, so concurrent holds can never together pass the
 * allowance. Throws 402 QUOTA_EXCEEDED naming the reset date. On the embedded store the hold is kept
 * in memory (memory-holds.ts) and costs no statement; on PostgreSQL it is `reserveStoredCredits`.
 */
export async function reserveCredits(
  db: Db,
  account: CreditAccount,
  amountMicro: number,
  requestId: string | null = null,
  now = new Date(),
): Promise<Reservation> {
  if (!db.memoryHolds) return reserveStoredCredits(db, account, amountMicro, requestId, now);
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
  if (!(await db.memoryHolds.hold(hold, account.monthlyCreditsMicro))) throw quotaExceeded(period.end);
  return { id: hold.id, amountMicro };
}

/**
 * The hold as a reservation row: one conditional UPDATE of the period row and the row's insert.
 *
 * The hold commits without waiting for its WAL flush (docs/platform.md, "Performance"): the settlement
 * that follows commits synchronously, which flushes the hold too, and a hold a database crash lost
 * makes that settlement find nothing, which the caller must answer as a failure at 0 credits.
 */
export async function reserveStoredCredits(
  db: Queryable,
  account: CreditAccount,
  amountMicro: number,
  requestId: string | null = null,
  now = new Date(),
): Promise<Reservation> {
  const period = allowancePeriod(account.organizationCreatedAt, now);
  const start = isoDate(period.start);
  const id = newId();
  let held = await holdIn(db, account, start, id, amountMicro, requestId);
  if (!held) {
    // The first hold of a period finds no row; create it (or find a concurrent request's) and try again.
    await db.query(
      `INSERT INTO credit_periods (organization_id, period_start, environment) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [account.organizationId, start, account.environment],
    );
    held = await holdIn(db, account, start, id, amountMicro, requestId);
  }
  if (!held) throw quotaExceeded(period.end);
  return { id, amountMicro };
}

function quotaExceeded(periodEnd: Date): ServiceError {
  return new ServiceError('ERR::LIMIT::QUOTA_EXCEEDED', `Monthly credit allowance exhausted; it resets on ${periodEnd.toISOString()}`);
}

/** One statement: the conditional hold on the period row and the reservation row, atomically. */
async function holdIn(
  db: Queryable,
  account: CreditAccount,
  start: string,
  id: string,
  amountMicro: number,
  requestId: string | null,
): Promise<boolean> {
  const result = await db.query(
    `WITH ${holdClauses({ organization: '$1', start: '$2', environment: '$3', amount: '$4', allowance: '$5', id: '$6', project: '$7', requestId: '$8' }, 'true')}
     SELECT 1 FROM reserved, (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`,
    [account.organizationId, start, account.environment, amountMicro, account.monthlyCreditsMicro, id, account.projectId, requestId],
    { name: 'credits_hold' },
  );
  return result.rows.length > 0;
}

/** The parameters of a hold in one statement (`holdClauses`), as the statement's parameter names. */
export interface HoldParameters {
  organization: string;
  start: string;
  environment: string;
  amount: string;
  allowance: string;
  id: string;
  project: string;
  requestId: string;
}

/**
 * The WITH clauses `held` (the period row's conditional hold, only when `when`) and `reserved` (the
 * reservation row, returning its id) of a hold; locks the period row, then inserts the hold. The
 * period's settlement stripes are read, not locked (settled-stripes.ts says why that stays exact).
 */
export function holdClauses(p: HoldParameters, when: string): string {
  return `held AS (
       UPDATE credit_periods SET reserved_micro = reserved_micro + ${p.amount}
        WHERE organization_id = ${p.organization} AND period_start = ${p.start} AND environment = ${p.environment}
          AND ${fitsAllowance(p)} AND ${when}
        RETURNING organization_id),
     reserved AS (
       INSERT INTO credit_reservations (id, organization_id, project_id, period_start, environment, amount_micro, request_id, expires_at)
       SELECT ${p.id}, organization_id, ${p.project}, ${p.start}, ${p.environment}, ${p.amount}, ${p.requestId}, now() + interval '${HOLD_LIFETIME_MINUTES} minutes'
         FROM held
       RETURNING id)`;
}

/**
 * Releases the hold and charges `chargedMicro` (at most the hold), in one statement. Settling twice
 * is a no-op, so a retried settlement never bills twice. A hold kept in memory (embedded store) is
 * written settled, group-committed with the settlements queued meanwhile; never inside a transaction.
 * On PostgreSQL outside a transaction the settlements that queue while one is written go together
 * in the next statement (settlement-groups.ts).
 * `leaseHolder` names a concurrency lease (lib/store/limits.ts) the same statement deletes, settled or
 * not: the scrape's slot is freed with its settlement instead of by a statement of its own.
 */
export async function settleReservation(
  db: Queryable,
  reservationId: string,
  chargedMicro: number,
  engine: string | null = null,
  leaseHolder: string | null = null,
): Promise<boolean> {
  const inMemory = db.memoryHolds?.settle(reservationId, chargedMicro, engine);
  if (inMemory) return inMemory;
  const settlement = { reservationId, chargedMicro, engine, leaseHolder };
  return db.settlementGroups ? db.settlementGroups.settle(settlement) : settleStored(db, settlement);
}

/** Names the request that spent a batch item's hold (the item's latest attempt). */
export async function tagReservation(db: Queryable, reservationId: string, requestId: string): Promise<void> {
  await db.query('UPDATE credit_reservations SET request_id = $2 WHERE id = $1', [reservationId, requestId]);
}

/**
 * A scrape hold outlives the longest possible scrape by far; one still open then was left by a crashed
 * gateway. Batch item holds have no expiry: the batch lifecycle settles them.
 */
export const HOLD_LIFETIME_MINUTES = 10;

/** Releases (charges 0) every expired hold: a crash never bills. */
export async function releaseStaleReservations(db: Db): Promise<number> {
  const stale = await db.query<{ id: string }>(
    `SELECT id FROM credit_reservations WHERE settled_at IS NULL AND expires_at IS NOT NULL AND expires_at < now()`,
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
    `SELECT reserved_micro, spent_micro FROM credit_period_totals WHERE organization_id = $1 AND period_start = $2 AND environment = $3`,
    [account.organizationId, isoDate(period.start), account.environment],
  );
  const row = result.rows[0];
  const inMemory = db.memoryHolds?.heldIn({ organizationId: account.organizationId, periodStart: isoDate(period.start), environment: account.environment });
  return {
    periodStart: period.start.toISOString(),
    periodEnd: period.end.toISOString(),
    allowanceMicro: account.monthlyCreditsMicro,
    reservedMicro: Number(row?.reserved_micro ?? 0) + (inMemory?.micro ?? 0),
    spentMicro: Number(row?.spent_micro ?? 0),
  };
}
