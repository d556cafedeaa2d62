/**
 * Sessions (docs/sessions.md). Status is not stored: it is derived from `released_at` and the clock.
 * Uniqueness of an active `sticky_key` needs the clock too, so it is enforced in code under a
 * per-organization advisory lock (see lib/store/sessions.ts), with an index to make the check cheap.
 */
export const up = `
CREATE TABLE IF NOT EXISTS sessions (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id),
  project_id text NOT NULL REFERENCES projects (id),
  engine text NOT NULL,
  sticky_key text NOT NULL,
  proxy jsonb NOT NULL,
  ttl_seconds integer NOT NULL,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  expires_at timestamptz NOT NULL,
  hard_expires_at timestamptz,
  released_at timestamptz,
  usage_count integer NOT NULL DEFAULT 0,
  context jsonb,
  fingerprint jsonb,
  domain_scores jsonb NOT NULL DEFAULT '{}'::jsonb,
  retired text,
  lease_holder text,
  lease_expires_at timestamptz
);
CREATE INDEX IF NOT EXISTS sessions_live ON sessions (organization_id, expires_at) WHERE released_at IS NULL;
CREATE INDEX IF NOT EXISTS sessions_sticky ON sessions (project_id, lower(sticky_key)) WHERE released_at IS NULL;
CREATE INDEX IF NOT EXISTS sessions_project_page ON sessions (project_id, id DESC);
CREATE INDEX IF NOT EXISTS sessions_purge ON sessions (expires_at) WHERE context IS NOT NULL;
`;
