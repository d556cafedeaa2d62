/** Dashboard accounts (docs/dashboard.md): users, memberships, sessions, invitations, sign-in failures. */
export const up = `
CREATE TABLE IF NOT EXISTS dashboard_users (
  id text PRIMARY KEY,
  email text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS dashboard_members (
  organization_id text NOT NULL REFERENCES organizations(id),
  user_id text NOT NULL REFERENCES dashboard_users(id),
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX IF NOT EXISTS dashboard_members_user ON dashboard_members (user_id);

CREATE TABLE IF NOT EXISTS dashboard_sessions (
  token_hash text PRIMARY KEY,
  user_id text NOT NULL REFERENCES dashboard_users(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS dashboard_sessions_user ON dashboard_sessions (user_id);

CREATE TABLE IF NOT EXISTS dashboard_invitations (
  id text PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  email text,
  created_by text REFERENCES dashboard_users(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz
);

CREATE TABLE IF NOT EXISTS dashboard_sign_in_failures (
  email text PRIMARY KEY,
  failures integer NOT NULL,
  window_start timestamptz NOT NULL,
  locked_until timestamptz
);

ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS last_used_at timestamptz;
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS internal boolean NOT NULL DEFAULT false;
`;
