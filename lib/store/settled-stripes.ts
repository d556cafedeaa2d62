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
 * Stripes per period. A process settles into one stripe of its own, drawn at random: its scrape
 * settlements already go one statement at a time (settlement-groups.ts), settlements of several
 * gateways rarely meet on one row, and a hold that reads the stripes reads one row per process that
 * settled in the period, at most this many (a stripe drawn per statement instead, so 8 rows read,
 * cost a hold about 15-20 µs more PostgreSQL CPU).
 */
export const SETTLED_STRIPES = 8;
const PROCESS_STRIPE = randomInt(SETTLED_STRIPES);

/**
 * SQL condition of a hold on the period row (its columns unqualified): `amount` fits the allowance
 * once the row's figures and the period's stripes are counted. The row alone counts at least as much
 * (the stripes' balance is never positive), so when it fits by the row alone the stripes are not read:
 * PostgreSQL evaluates the subquery only when the second branch of the OR is reached.
 */
export function fitsAllowance(p: { organization: string; start: string; environment: string; amount: string; allowance: string }): string {
  const balance = `COALESCE((SELECT sum(s.charged_micro - s.released_micro)::bigint FROM credit_settled s
              WHERE s.organization_id = ${p.organization} AND s.period_start = ${p.start} AND s.environment = ${p.environment}), 0)`;
  return `(spent_micro + reserved_micro + ${p.amount} <= ${p.allowance}
            OR spent_micro + reserved_micro + ${balance} + ${p.amount} <= ${p.allowance})`;
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
