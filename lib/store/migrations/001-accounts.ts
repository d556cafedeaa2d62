export const up = `
CREATE TABLE IF NOT EXISTS organizations (
  id text PRIMARY KEY,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  created_at timestamptz NOT NULL DEFAULT now(),
  monthly_credits_micro bigint NOT NULL,
  rate_limit_per_second integer NOT NULL,
  concurrency_limit integer NOT NULL,
  entitled_engines text[] NOT NULL DEFAULT ARRAY['fetch', 'obscura', 'chromium', 'camoufox'],
  max_session_ttl_seconds integer NOT NULL DEFAULT 604800
);

CREATE TABLE IF NOT EXISTS projects (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  name text NOT NULL,
  defaults jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  archived_at timestamptz
);

CREATE TABLE IF NOT EXISTS api_keys (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  project_id text NOT NULL REFERENCES projects(id),
  name text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  display_prefix text NOT NULL,
  secret_hash text NOT NULL UNIQUE,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX IF NOT EXISTS api_keys_project ON api_keys (project_id);

CREATE TABLE IF NOT EXISTS credit_periods (
  organization_id text NOT NULL REFERENCES organizations(id),
  period_start date NOT NULL,
  environment text NOT NULL,
  reserved_micro bigint NOT NULL DEFAULT 0 CHECK (reserved_micro >= 0),
  spent_micro bigint NOT NULL DEFAULT 0 CHECK (spent_micro >= 0),
  PRIMARY KEY (organization_id, period_start, environment)
);

CREATE TABLE IF NOT EXISTS credit_reservations (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  project_id text NOT NULL,
  period_start date NOT NULL,
  environment text NOT NULL,
  amount_micro bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz,
  charged_micro bigint
);
CREATE INDEX IF NOT EXISTS credit_reservations_open ON credit_reservations (created_at) WHERE settled_at IS NULL;
`;
