import type { Queryable } from './db.js';
import { MOVED_TO_STRIPE } from './settled-stripes.js';

/**
 * The SQL that settles holds kept as rows (PostgreSQL scrapes, batch items, stale holds): release
 * the hold, charge at most its amount, add both to a stripe of the period (settled-stripes.ts: not the
 * period row, which holds lock), and free the scrape's concurrency lease row when one is named. Each
 * settles a hold at most once: a second settlement finds it settled and does nothing.
 */

export interface StoredSettlement {
  holdId: string;
  chargedMicro: number;
  engine: string | null;
  /** A concurrency lease (lib/store/shared-limits.ts) deleted by the same statement, settled or not. */
  leaseHolder: string | null;
}

const CLAIMED = `claimed AS (
       UPDATE credit_reservations SET settled_at = now(), charged_micro = LEAST($2::bigint, amount_micro), engine = $3
        WHERE id = $1 AND settled_at IS NULL
        RETURNING organization_id, period_start, environment, amount_micro, charged_micro)`;

/** One settlement in one statement; true when this call settled the hold. */
export async function settleStored(db: Queryable, { holdId, chargedMicro, engine, leaseHolder }: StoredSettlement): Promise<boolean> {
  if (leaseHolder === null) {
    const result = await db.query<{ settled: number }>(`WITH ${CLAIMED}, ${MOVED_TO_STRIPE} SELECT count(*)::int AS settled FROM moved`, [holdId, chargedMicro, engine], {
      name: 'credits_settle',
    });
    return result.rows[0].settled > 0;
  }
  // Lock order (docs/batch.md "Lock order"): the hold, a stripe of its period, then the lease row. The
  // DELETE runs though nothing reads its result: PostgreSQL runs every data-modifying WITH clause.
  const result = await db.query<{ settled: number }>(
    `WITH ${CLAIMED}, ${MOVED_TO_STRIPE},
     freed AS (DELETE FROM concurrency_slots WHERE holder = $4)
     SELECT count(*)::int AS settled FROM moved`,
    [holdId, chargedMicro, engine, leaseHolder],
    { name: 'credits_settle_free_slot' },
  );
  return result.rows[0].settled > 0;
}

/**
 * Several settlements (distinct holds) in one statement: the same steps as `settleStored`, each
 * period moved once by its holds' totals. Returns the ids of the holds this statement settled.
 * Lock order: the holds, a stripe of each period (in key order), then the lease rows (docs/batch.md "Lock order").
 */
export async function settleStoredGroup(db: Queryable, group: readonly StoredSettlement[]): Promise<Set<string>> {
  const rows = group.map((s) => ({ id: s.holdId, charged: s.chargedMicro, engine: s.engine }));
  const holders = group.flatMap((s) => (s.leaseHolder === null ? [] : [s.leaseHolder]));
  const result = await db.query<{ id: string }>(
    `WITH v AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(id text, charged bigint, engine text)),
     claimed AS (
       UPDATE credit_reservations r SET settled_at = now(), charged_micro = LEAST(v.charged, r.amount_micro), engine = v.engine
         FROM v
        WHERE r.id = ANY($2::text[]) AND r.id = v.id AND r.settled_at IS NULL
        RETURNING r.id, r.organization_id, r.period_start, r.environment, r.amount_micro, r.charged_micro),
     ${MOVED_TO_STRIPE},
     freed AS (DELETE FROM concurrency_slots WHERE holder = ANY($3::text[]))
     SELECT c.id FROM claimed c JOIN moved m USING (organization_id, period_start, environment)`,
    [JSON.stringify(rows), rows.map((row) => row.id), holders],
    { name: 'credits_settle_group' },
  );
  return new Set(result.rows.map((row) => row.id));
}
