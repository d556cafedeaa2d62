/**
 * Indexes of open holds that keep a settlement's plan on its own holds (docs/platform.md "Ledger rows").
 * Before, the only indexes whose predicate a settlement's `WHERE id ... AND settled_at IS NULL`
 * implies were keyed by time, so the planner could read one whole to find a few ids: every open hold
 * (a batch's item holds included) and the dead entries of those settled since the last vacuum. The
 * grouped settlement did, and cost more with every hold left open.
 * - `credit_reservations_open_id`: the open holds by id; a settlement finds its holds by key in it.
 * - `credit_reservations_stale`: scrape holds (those with an expiry) by expiry, for the sweep of a
 *   crashed gateway's holds; its predicate names `expires_at`, so no settlement reads it.
 * `credit_reservations_open` (created_at; no query reads it) and `credit_reservations_expiry` go.
 */
export const up = `
CREATE INDEX IF NOT EXISTS credit_reservations_open_id ON credit_reservations (id) WHERE settled_at IS NULL;
CREATE INDEX IF NOT EXISTS credit_reservations_stale ON credit_reservations (expires_at)
  WHERE settled_at IS NULL AND expires_at IS NOT NULL;
DROP INDEX IF EXISTS credit_reservations_expiry;
DROP INDEX IF EXISTS credit_reservations_open;
`;
