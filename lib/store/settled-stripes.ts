/**
 * A period's ledger in two kinds of row (migration 015, docs/platform.md "Billing"): the period row
 * (`credit_periods`), which holds update under its row lock, and its settlement stripes
 * (`credit_settled`), which settlements of stored holds add to. Reserved is the row's `reserved_micro`
 * less the stripes' `released_micro`, spent the row's `spent_micro` plus their `charged_micro`.
 *
 * Why a hold may read the stripes without locking them: every settlement adds `charged - released`
 * with `charged <= released`, so the stripes' balance only ever falls. A hold that reads it from its
 * snapshot, while settlements commit meanwhile, counts at most what is reserved and spent by then,
 * never less; and holds are serialised on the period row, so concurrent holds still never together
 * pass the allowance.
 */

import { randomInt } from 'node:crypto';

/**
 * Stripes per period. A process settles into one stripe of its own, chosen at random: its scrape
 * settlements already go one statement at a time (settlement-groups.ts), settlements of several
 * gateways rarely meet on one row, and a hold reads at most this many rows (a stripe per settling
 * process and period; measured, each stripe read costs a hold about 2 µs of PostgreSQL CPU).
 */
export const SETTLED_STRIPES = 8;
const PROCESS_STRIPE = randomInt(SETTLED_STRIPES);

/** SQL: the stripes' balance of one period (sum of charged less released, never positive), 0 without stripes. */
export function settledBalance(organization: string, start: string, environment: string): string {
  return `COALESCE((SELECT sum(s.charged_micro - s.released_micro) FROM credit_settled s
            WHERE s.organization_id = ${organization} AND s.period_start = ${start} AND s.environment = ${environment}), 0)`;
}

/**
 * WITH clause `moved` of a statement whose `claimed` clause returned settled holds (organization_id,
 * period_start, environment, amount_micro, charged_micro): each period's totals added to one of its
 * stripes (this process's), in the periods' key order (two statements lock shared stripes in the
 * same order); returns the periods' keys.
 */
export const MOVED_TO_STRIPE = `moved AS (
       INSERT INTO credit_settled AS s (organization_id, period_start, environment, stripe, released_micro, charged_micro)
       SELECT organization_id, period_start, environment, ${PROCESS_STRIPE}::smallint, sum(amount_micro), sum(charged_micro)
         FROM claimed GROUP BY organization_id, period_start, environment ORDER BY organization_id, period_start, environment
       ON CONFLICT (organization_id, period_start, environment, stripe) DO UPDATE
          SET released_micro = s.released_micro + EXCLUDED.released_micro, charged_micro = s.charged_micro + EXCLUDED.charged_micro
       RETURNING organization_id, period_start, environment)`;
