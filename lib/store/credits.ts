import { newId } from '../ids.js';
import { type KeyEnvironment } from '../apikeys.js';
import { ServiceError } from '../errors/index.js';
import type { Queryable } from './db.js';
import { allowancePeriod, isoDate } from './allowance-period.js';
import { fitsAllowance } from './settled-stripes.js';

/** One allowance month of one organization's ledger (live or test). */
export interface PeriodKey {
  organizationId: string;
  periodStart: string;
  environment: KeyEnvironment;
}

export interface CreditAccount {
  organizationId: string;
  projectId: string;
  organizationCreatedAt: Date;
  monthlyCreditsMicro: number;
  /** Test keys hold and spend against a ledger of their own, never the live one (docs/api-reference.md "Authentication" 3). */
  environment: KeyEnvironment;
}

/** A credit hold taken against an allowance month (a `credit_reservations` row once stored). */
export interface Hold {
  id: string;
  amountMicro: number;
}

/** A hold to take in a statement of its own kind (the shared limiter's admission statement). */
export interface HoldRequest {
  id: string;
  projectId: string;
  periodStart: string;
  environment: string;
  amountMicro: number;
  allowanceMicro: number;
  requestId: string | null;
}

/**
 * The hold as a reservation row: one conditional UPDATE of the period row and the row's insert.
 *
 * The hold commits without waiting for its WAL flush (docs/platform.md, "Performance"): the settlement
 * that follows commits synchronously, which flushes the hold too, and a hold a database crash lost
 * makes that settlement find nothing, which the caller must answer as a failure at 0 credits.
 */
export async function takeStoredHold(
  db: Queryable,
  account: CreditAccount,
  amountMicro: number,
  requestId: string | null = null,
  now = new Date(),
): Promise<Hold> {
  const period = allowancePeriod(account.organizationCreatedAt, now);
  const start = isoDate(period.start);
  const id = newId();
  let held = await holdIn(db, account, start, id, amountMicro, requestId);
  if (!held) {
    // The first hold of a period finds no row; create it (or find a concurrent request's) and try again.
    await createPeriodRow(db, { organizationId: account.organizationId, periodStart: start, environment: account.environment });
    held = await holdIn(db, account, start, id, amountMicro, requestId);
  }
  if (!held) throw quotaExceeded(period.end);
  return { id, amountMicro };
}

/** The period's row, created on its first hold (a concurrent request's creation is found). */
export async function createPeriodRow(db: Queryable, key: PeriodKey): Promise<void> {
  await db.query(
    `INSERT INTO credit_periods (organization_id, period_start, environment) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
    [key.organizationId, key.periodStart, key.environment],
    { name: 'credits_period_row' },
  );
}

/** Spent + reserved of a period as stored (its row and settlement stripes). */
export async function periodUsedMicro(db: Queryable, key: PeriodKey): Promise<number> {
  const result = await db.query<{ used: number }>(
    `SELECT spent_micro + reserved_micro AS used FROM credit_period_totals WHERE organization_id = $1 AND period_start = $2 AND environment = $3`,
    [key.organizationId, key.periodStart, key.environment],
    { name: 'credits_period_used' },
  );
  return Number(result.rows[0]?.used ?? 0);
}

export function quotaExceeded(periodEnd: Date): ServiceError {
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
 * A scrape hold outlives the longest possible scrape by far; one still open then was left by a crashed
 * gateway. Batch item holds have no expiry: the batch lifecycle settles them.
 */
export const HOLD_LIFETIME_MINUTES = 10;

/** Stored holds still open after their expiry: left by a crashed gateway, released by the sweep (lib/billing/ledger.ts). */
export async function expiredHoldIds(db: Queryable): Promise<string[]> {
  const stale = await db.query<{ id: string }>(
    `SELECT id FROM credit_reservations WHERE settled_at IS NULL AND expires_at IS NOT NULL AND expires_at < now()`,
  );
  return stale.rows.map((row) => row.id);
}

export interface PeriodUsage {
  periodStart: string;
  periodEnd: string;
  allowanceMicro: number;
  reservedMicro: number;
  spentMicro: number;
}

/** The allowance month of `account` as the store has it, plus the open holds not yet rows (`heldElsewhere`: lib/billing/memory-ledger.ts). */
export async function periodUsage(
  db: Queryable,
  account: CreditAccount,
  heldElsewhere: (key: PeriodKey) => { micro: number },
  now = new Date(),
): Promise<PeriodUsage> {
  const period = allowancePeriod(account.organizationCreatedAt, now);
  const result = await db.query<{ reserved_micro: number; spent_micro: number }>(
    `SELECT reserved_micro, spent_micro FROM credit_period_totals WHERE organization_id = $1 AND period_start = $2 AND environment = $3`,
    [account.organizationId, isoDate(period.start), account.environment],
  );
  const row = result.rows[0];
  return {
    periodStart: period.start.toISOString(),
    periodEnd: period.end.toISOString(),
    allowanceMicro: account.monthlyCreditsMicro,
    reservedMicro: Number(row?.reserved_micro ?? 0) + heldElsewhere({ organizationId: account.organizationId, periodStart: isoDate(period.start), environment: account.environment }).micro,
    spentMicro: Number(row?.spent_micro ?? 0),
  };
}
