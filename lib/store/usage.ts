import type { KeyEnvironment } from '../apikeys.js';
import type { Queryable } from './db.js';

export const USAGE_GROUPS = ['day', 'engine', 'project'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

export interface UsageRow {
  day?: string;
  engine?: string | null;
  project_id?: string;
  requests: number;
  billed_requests: number;
  credits_charged_micro: number;
}

const GROUP_COLUMNS: Record<UsageGroup, string> = {
  day: `to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day`,
  engine: 'engine',
  project: 'project_id',
};
const GROUP_KEYS: Record<UsageGroup, string> = { day: 'day', engine: 'engine', project: 'project_id' };

/**
 * Settled holds of one organization between `from` (inclusive) and `to` (exclusive), grouped. Every
 * scrape leaves one hold, so `requests` counts admitted scrapes (validation errors never hold).
 */
export async function usageSummary(
  db: Queryable,
  query: { organizationId: string; environment: KeyEnvironment; from: Date; to: Date; groupBy: UsageGroup[] },
): Promise<UsageRow[]> {
  const select = query.groupBy.map((g) => GROUP_COLUMNS[g]);
  const keys = query.groupBy.map((g) => GROUP_KEYS[g]);
  const result = await db.query<UsageRow>(
    `SELECT ${[...select, 'count(*)::bigint AS requests', 'count(*) FILTER (WHERE charged_micro > 0)::bigint AS billed_requests',
      'COALESCE(sum(charged_micro), 0)::bigint AS credits_charged_micro'].join(', ')}
       FROM credit_reservations
      WHERE organization_id = $1 AND environment = $2 AND settled_at IS NOT NULL AND created_at >= $3 AND created_at < $4
      ${keys.length > 0 ? `GROUP BY ${keys.join(', ')} ORDER BY ${keys.join(', ')}` : ''}`,
    [query.organizationId, query.environment, query.from, query.to],
  );
  return result.rows.map((row) => ({
    ...row,
    requests: Number(row.requests),
    billed_requests: Number(row.billed_requests),
    credits_charged_micro: Number(row.credits_charged_micro),
  }));
}

export interface HoldTotals {
  settled_count: number;
  charged_micro: number;
  open_count: number;
  open_micro: number;
}

/**
 * Per-hold totals of one allowance month, to reconcile against the period's ledger row; `heldElsewhere`
 * adds the open holds not yet rows (kept in memory: lib/billing/memory-ledger.ts).
 */
export async function holdTotals(
  db: Queryable,
  organizationId: string,
  environment: KeyEnvironment,
  periodStart: string,
  heldElsewhere: { count: number; micro: number },
): Promise<HoldTotals> {
  const result = await db.query<HoldTotals>(
    `SELECT count(*) FILTER (WHERE settled_at IS NOT NULL)::bigint AS settled_count,
            COALESCE(sum(charged_micro) FILTER (WHERE settled_at IS NOT NULL), 0)::bigint AS charged_micro,
            count(*) FILTER (WHERE settled_at IS NULL)::bigint AS open_count,
            COALESCE(sum(amount_micro) FILTER (WHERE settled_at IS NULL), 0)::bigint AS open_micro
       FROM credit_reservations WHERE organization_id = $1 AND environment = $2 AND period_start = $3`,
    [organizationId, environment, periodStart],
  );
  const row = result.rows[0];
  return {
    settled_count: Number(row.settled_count),
    charged_micro: Number(row.charged_micro),
    open_count: Number(row.open_count) + heldElsewhere.count,
    open_micro: Number(row.open_micro) + heldElsewhere.micro,
  };
}

/** Charged request-log records of the organization since `since` (within retention) and their sum. */
export async function requestLogTotals(db: Queryable, organizationId: string, since: Date, until: Date): Promise<{ records: number; credits_micro: number }> {
  const result = await db.query<{ records: number; credits_micro: number }>(
    `SELECT count(*)::bigint AS records, COALESCE(sum((entry->>'credits_micro')::bigint), 0)::bigint AS credits_micro
       FROM request_log WHERE organization_id = $1 AND created_at >= $2 AND created_at < $3
        AND (entry->>'credits_micro')::bigint > 0`,
    [organizationId, since, until],
  );
  return { records: Number(result.rows[0].records), credits_micro: Number(result.rows[0].credits_micro) };
}
