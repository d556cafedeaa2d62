/**
 * Limits shared by every gateway replica on PostgreSQL (docs/limits.md): one token bucket row per API
 * key, and one lease row per busy concurrency slot of an organization. Slot numbers run from 0 to the
 * organization's limit minus one, so the primary key alone makes over-admission impossible; a lease
 * whose gateway died expires and its slot is taken again.
 */
export const up = `
CREATE TABLE IF NOT EXISTS rate_limit_buckets (
  key_id text PRIMARY KEY,
  tokens double precision NOT NULL,
  refilled_at_ms double precision NOT NULL,
  granted boolean NOT NULL
);
CREATE TABLE IF NOT EXISTS concurrency_slots (
  organization_id text NOT NULL,
  slot integer NOT NULL,
  holder text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, slot)
);
CREATE INDEX IF NOT EXISTS concurrency_slots_holder ON concurrency_slots (holder);
`;
