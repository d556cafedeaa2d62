import { createPeriodRow, type CreditAccount } from '../credits.js';
import type { Queryable } from '../db.js';
import { fitsAllowance, MOVED_TO_STRIPE } from '../settled-stripes.js';

/** The item holds of a batch submission: one `credit_reservations` row per item, in submission order. */
export interface ItemHoldRow {
  id: string;
  amount: number;
}

/**
 * Holds every item's dearest cost at once (lib/billing/batch-holds.ts): one conditional UPDATE of the
 * period row for the sum and one credit_reservations row per item, in one statement, so the whole
 * submission is held or none of it. False when `allowanceMicro` cannot hold the sum.
 */
export async function insertItemHolds(db: Queryable, account: CreditAccount, periodStart: string, rows: ItemHoldRow[], allowanceMicro: number): Promise<boolean> {
  const total = rows.reduce((sum, row) => sum + row.amount, 0);
  const hold = () =>
    db.query(
      `WITH held AS (
         UPDATE credit_periods SET reserved_micro = reserved_micro + $4
          WHERE organization_id = $1 AND period_start = $2 AND environment = $3
            AND ${fitsAllowance({ organization: '$1', start: '$2', environment: '$3', amount: '$4', allowance: '$5' })}
          RETURNING organization_id)
       INSERT INTO credit_reservations (id, organization_id, project_id, period_start, environment, amount_micro)
       SELECT r.id, held.organization_id, $6, $2, $3, r.amount
         FROM held, jsonb_to_recordset($7::jsonb) AS r(id text, amount bigint)`,
      [account.organizationId, periodStart, account.environment, total, allowanceMicro, account.projectId, JSON.stringify(rows)],
    );
  let result = await hold();
  if (result.rowCount === 0) {
    await createPeriodRow(db, { organizationId: account.organizationId, periodStart, environment: account.environment });
    result = await hold();
  }
  return result.rowCount > 0;
}

/** One item hold of a finishing group: tagged with the request that spent it, and settled when `settle` is set. */
export interface ItemHoldUpdate {
  reservationId: string;
  requestId: string;
  /** The succeeded item's charge and engine; null for an item that failed or goes back to the queue. */
  settle: { chargedMicro: number; engine: string | null } | null;
}

/**
 * In one statement: names the request that spent each hold (the item's latest attempt), and settles
 * the holds of succeeded items, each at most once (same ledger rules as `Ledger.settle`,
 * lib/billing/ledger.ts): charged up to its amount, the totals added to a stripe of the period (lib/store/settled-stripes.ts).
 * Returns the ids settled by this call; a hold settled before is only tagged. Locks holds, then stripes.
 * The ids also go as an array: `id = ANY(...)` makes the holds index lookups (JSON rows alone gave a
 * hash join over a scan of every hold in the table, per group).
 */
export async function settleItemHolds(db: Queryable, updates: ItemHoldUpdate[]): Promise<Set<string>> {
  if (updates.length === 0) return new Set();
  const result = await db.query<{ id: string }>(
    `WITH v AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(id text, request_id text, settle boolean, charged bigint, engine text)),
     claimed AS (
       UPDATE credit_reservations r SET request_id = v.request_id, settled_at = now(), charged_micro = LEAST(v.charged, r.amount_micro), engine = v.engine
         FROM v WHERE r.id = ANY($2::text[]) AND r.id = v.id AND v.settle AND r.settled_at IS NULL
       RETURNING r.id, r.organization_id, r.period_start, r.environment, r.amount_micro, r.charged_micro),
     tagged AS (
       UPDATE credit_reservations r SET request_id = v.request_id
         FROM v WHERE r.id = ANY($2::text[]) AND r.id = v.id AND NOT EXISTS (SELECT 1 FROM claimed c WHERE c.id = v.id)
       RETURNING 1),
     ${MOVED_TO_STRIPE}
     SELECT id FROM claimed`,
    [JSON.stringify(updates.map((u) => ({ id: u.reservationId, request_id: u.requestId, settle: u.settle !== null, charged: u.settle?.chargedMicro ?? 0, engine: u.settle?.engine ?? null }))),
      updates.map((u) => u.reservationId)],
  );
  return new Set(result.rows.map((row) => row.id));
}
