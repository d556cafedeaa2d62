/**
 * Settlements of stored holds add to a stripe row of their period instead of updating the period row
 * (docs/platform.md "Billing", "Ledger rows"). Holds update `credit_periods` under its row lock; a
 * settlement, which commits synchronously, no longer holds that lock through its WAL flush. A period's
 * figures are the period row and the sum of its stripes: reserved = reserved_micro - released_micro,
 * spent = spent_micro + charged_micro (`credit_period_totals`).
 */
export const up = `
CREATE TABLE IF NOT EXISTS credit_settled (
  organization_id text NOT NULL,
  period_start date NOT NULL,
  environment text NOT NULL,
  stripe smallint NOT NULL,
  released_micro bigint NOT NULL DEFAULT 0 CHECK (released_micro >= 0),
  charged_micro bigint NOT NULL DEFAULT 0 CHECK (charged_micro >= 0),
  PRIMARY KEY (organization_id, period_start, environment, stripe)
);
CREATE OR REPLACE VIEW credit_period_totals AS
  SELECT p.organization_id, p.period_start, p.environment,
         (p.reserved_micro - COALESCE(s.released, 0))::bigint AS reserved_micro,
         (p.spent_micro + COALESCE(s.charged, 0))::bigint AS spent_micro
    FROM credit_periods p
    CROSS JOIN LATERAL (
      SELECT sum(released_micro) AS released, sum(charged_micro) AS charged FROM credit_settled s
       WHERE s.organization_id = p.organization_id AND s.period_start = p.period_start AND s.environment = p.environment) s;
`;
