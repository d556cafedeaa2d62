import { ServiceError } from '../../errors/index.js';
import { newId } from '../../ids.js';
import { allowancePeriod, isoDate } from '../allowance-period.js';
import type { CreditAccount } from '../credits.js';
import type { Queryable } from '../db.js';

export interface ItemHold {
  amountMicro: number;
}

/**
 * Holds every item's dearest cost at once: one conditional UPDATE of the period row for the sum and
 * one credit_reservations row per item, in one statement, so the whole submission is held or none of
 * it (402). Same ledger rules as `reserveCredits` in lib/store/credits.ts. Returns reservation ids in order.
 */
export async function reserveItemHolds(db: Queryable, account: CreditAccount, holds: ItemHold[], now = new Date()): Promise<string[]> {
  if (holds.length === 0) return [];
  const period = allowancePeriod(account.organizationCreatedAt, now);
  const start = isoDate(period.start);
  const rows = holds.map((hold) => ({ id: newId(), amount: hold.amountMicro }));
  const total = rows.reduce((sum, row) => sum + row.amount, 0);
  const hold = () =>
    db.query(
      `WITH held AS (
         UPDATE credit_periods SET reserved_micro = reserved_micro + $4
          WHERE organization_id = $1 AND period_start = $2 AND environment = $3
            AND spent_micro + reserved_micro + $4 <= $5
          RETURNING organization_id)
       INSERT INTO credit_reservations (id, organization_id, project_id, period_start, environment, amount_micro)
       SELECT r.id, held.organization_id, $6, $2, $3, r.amount
         FROM held, jsonb_to_recordset($7::jsonb) AS r(id text, amount bigint)`,
      [account.organizationId, start, account.environment, total, account.monthlyCreditsMicro, account.projectId, JSON.stringify(rows)],
    );
  let result = await hold();
  if (result.rowCount === 0) {
    await db.query(
      `INSERT INTO credit_periods (organization_id, period_start, environment) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [account.organizationId, start, account.environment],
    );
    result = await hold();
  }
  if (result.rowCount === 0) {
    throw new ServiceError('ERR::LIMIT::QUOTA_EXCEEDED', `Monthly credit allowance cannot hold this batch; it resets on ${period.end.toISOString()}`);
  }
  return rows.map((row) => row.id);
}
