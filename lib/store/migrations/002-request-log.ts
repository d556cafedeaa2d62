/**
 * The request log: one row per request, kept for REQUEST_LOG_RETENTION_HOURS. The entry is stored whole
 * as jsonb; the columns beside it are what listing filters, orders and purges on. `id` uses the "C"
 * collation so the keyset order of ULIDs is byte order whatever the database's default collation is.
 */
export const up = `
CREATE TABLE IF NOT EXISTS request_log (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text NOT NULL,
  project_id text NOT NULL,
  created_at timestamptz NOT NULL,
  status text NOT NULL,
  entry jsonb NOT NULL
);
CREATE INDEX IF NOT EXISTS request_log_project_page
  ON request_log (organization_id, project_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS request_log_organization_page
  ON request_log (organization_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS request_log_purge ON request_log (created_at);
`;
