/**
 * A job's item totals kept on its row (docs/batch.md "Job totals"), so claiming, finalizing and reading
 * a job never count its items. Triggers on batch_items move them in the statement that changes the
 * items, so they always equal a count of the items in the same transaction, whichever code wrote them.
 * A statement that changes no status, charge or size (lease renewals, hold returns) leaves the job row
 * untouched and unlocked.
 */
/** A job's totals over a set of item rows, grouped by job_id by the caller. */
const TOTALS_OF_ITEMS = `count(*) FILTER (WHERE status = 'queued') AS queued,
  count(*) FILTER (WHERE status = 'running') AS running,
  count(*) FILTER (WHERE status = 'succeeded') AS succeeded,
  count(*) FILTER (WHERE status = 'failed') AS failed,
  count(*) FILTER (WHERE status = 'cancelled') AS cancelled,
  count(*) FILTER (WHERE status = 'skipped') AS skipped,
  sum(credits_micro) AS charged,
  COALESCE(sum(hold_micro) FILTER (WHERE status = 'running'), 0) AS running_hold,
  sum(bytes) AS bytes`;

export const up = `
ALTER TABLE batch_jobs
  ADD COLUMN IF NOT EXISTS items_queued bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS items_running bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS items_succeeded bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS items_failed bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS items_cancelled bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS items_skipped bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS items_charged_micro bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS items_running_hold_micro bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS items_bytes bigint NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION batch_job_totals_move() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  WITH rows AS (
    SELECT job_id, 1 AS sign, status, credits_micro, hold_micro, bytes FROM added_items
    UNION ALL
    SELECT job_id, -1, status, credits_micro, hold_micro, bytes FROM removed_items
  ), moved AS (
    SELECT job_id,
           sum(sign) FILTER (WHERE status = 'queued') AS queued,
           sum(sign) FILTER (WHERE status = 'running') AS running,
           sum(sign) FILTER (WHERE status = 'succeeded') AS succeeded,
           sum(sign) FILTER (WHERE status = 'failed') AS failed,
           sum(sign) FILTER (WHERE status = 'cancelled') AS cancelled,
           sum(sign) FILTER (WHERE status = 'skipped') AS skipped,
           sum(sign * credits_micro) AS charged,
           sum(sign * hold_micro) FILTER (WHERE status = 'running') AS running_hold,
           sum(sign * bytes) AS bytes
      FROM rows GROUP BY job_id
  )
  UPDATE batch_jobs j SET
         items_queued = j.items_queued + COALESCE(m.queued, 0),
         items_running = j.items_running + COALESCE(m.running, 0),
         items_succeeded = j.items_succeeded + COALESCE(m.succeeded, 0),
         items_failed = j.items_failed + COALESCE(m.failed, 0),
         items_cancelled = j.items_cancelled + COALESCE(m.cancelled, 0),
         items_skipped = j.items_skipped + COALESCE(m.skipped, 0),
         items_charged_micro = j.items_charged_micro + m.charged,
         items_running_hold_micro = j.items_running_hold_micro + COALESCE(m.running_hold, 0),
         items_bytes = j.items_bytes + m.bytes
    FROM moved m
   WHERE j.id = m.job_id
     AND (COALESCE(m.queued, 0) <> 0 OR COALESCE(m.running, 0) <> 0 OR COALESCE(m.succeeded, 0) <> 0
       OR COALESCE(m.failed, 0) <> 0 OR COALESCE(m.cancelled, 0) <> 0 OR COALESCE(m.skipped, 0) <> 0
       OR m.charged <> 0 OR COALESCE(m.running_hold, 0) <> 0 OR m.bytes <> 0);
  RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION batch_job_totals_added() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE batch_jobs j SET
         items_queued = j.items_queued + m.queued,
         items_running = j.items_running + m.running,
         items_succeeded = j.items_succeeded + m.succeeded,
         items_failed = j.items_failed + m.failed,
         items_cancelled = j.items_cancelled + m.cancelled,
         items_skipped = j.items_skipped + m.skipped,
         items_charged_micro = j.items_charged_micro + m.charged,
         items_running_hold_micro = j.items_running_hold_micro + m.running_hold,
         items_bytes = j.items_bytes + m.bytes
    FROM (SELECT job_id,
                 ${TOTALS_OF_ITEMS}
            FROM added_items GROUP BY job_id) m
   WHERE j.id = m.job_id;
  RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS batch_items_totals_update ON batch_items;
CREATE TRIGGER batch_items_totals_update AFTER UPDATE ON batch_items
  REFERENCING OLD TABLE AS removed_items NEW TABLE AS added_items
  FOR EACH STATEMENT EXECUTE FUNCTION batch_job_totals_move();
DROP TRIGGER IF EXISTS batch_items_totals_insert ON batch_items;
CREATE TRIGGER batch_items_totals_insert AFTER INSERT ON batch_items
  REFERENCING NEW TABLE AS added_items
  FOR EACH STATEMENT EXECUTE FUNCTION batch_job_totals_added();

UPDATE batch_jobs j SET
       items_queued = t.queued, items_running = t.running, items_succeeded = t.succeeded, items_failed = t.failed,
       items_cancelled = t.cancelled, items_skipped = t.skipped, items_charged_micro = t.charged,
       items_running_hold_micro = t.running_hold, items_bytes = t.bytes
  FROM (SELECT job_id,
               ${TOTALS_OF_ITEMS}
          FROM batch_items GROUP BY job_id) t
 WHERE j.id = t.job_id;
`;
