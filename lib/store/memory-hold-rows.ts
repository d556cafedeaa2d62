import type { Queryable } from './db.js';
import type { PeriodKey } from './credits.js';

/**
 * The rows of scrape holds kept in memory by the embedded store (lib/billing/memory-ledger.ts): such a
 * hold is written once, already settled, with its period's spent.
 */
export interface MemoryHold extends PeriodKey {
  id: string;
  projectId: string;
  amountMicro: number;
  requestId: string | null;
  createdAt: Date;
}

export interface MemorySettlement {
  hold: MemoryHold;
  chargedMicro: number;
  engine: string | null;
}

/** The settled reservation rows and their periods' spent, in one statement. */
export async function writeSettledHolds(db: Queryable, group: MemorySettlement[]): Promise<void> {
  if (group.length === 1) return writeOneSettled(db, group[0]);
  const rows = group.map(({ hold, chargedMicro, engine }) => ({
    id: hold.id,
    organization_id: hold.organizationId,
    project_id: hold.projectId,
    period_start: hold.periodStart,
    environment: hold.environment,
    amount: hold.amountMicro,
    charged: chargedMicro,
    engine,
    request_id: hold.requestId,
    created_at: hold.createdAt.toISOString(),
  }));
  await db.query(
    `WITH v AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(id text, organization_id text, project_id text, period_start date,
         environment text, amount bigint, charged bigint, engine text, request_id text, created_at timestamptz)),
     settled AS (
       INSERT INTO credit_reservations (id, organization_id, project_id, period_start, environment, amount_micro, request_id, created_at, settled_at, charged_micro, engine)
       SELECT id, organization_id, project_id, period_start, environment, amount, request_id, created_at, now(), charged, engine FROM v
       RETURNING organization_id, period_start, environment, charged_micro),
     totals AS (
       SELECT organization_id, period_start, environment, sum(charged_micro) AS charged FROM settled GROUP BY organization_id, period_start, environment)
     UPDATE credit_periods p SET spent_micro = p.spent_micro + t.charged
       FROM totals t
      WHERE p.organization_id = t.organization_id AND p.period_start = t.period_start AND p.environment = t.environment`,
    [JSON.stringify(rows)],
    { name: 'credits_settle_memory' },
  );
}

/** A settlement alone (no load): the same statement with plain parameters, cheaper than the JSON form. */
async function writeOneSettled(db: Queryable, { hold, chargedMicro, engine }: MemorySettlement): Promise<void> {
  await db.query(
    `WITH settled AS (
       INSERT INTO credit_reservations (id, organization_id, project_id, period_start, environment, amount_micro, request_id, created_at, settled_at, charged_micro, engine)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now(), $9, $10))
     UPDATE credit_periods SET spent_micro = spent_micro + $9
      WHERE organization_id = $2 AND period_start = $4 AND environment = $5`,
    [hold.id, hold.organizationId, hold.projectId, hold.periodStart, hold.environment, hold.amountMicro, hold.requestId, hold.createdAt, chargedMicro, engine],
    { name: 'credits_settle_memory_one' },
  );
}
