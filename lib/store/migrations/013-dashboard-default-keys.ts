/**
 * The Default key's secret, sealed with the dashboard's secret key so members can reveal it (docs/dashboard.md,
 * "the live key Default"), and the reveals that bound it to 10 per minute per user.
 */
export const up = `
CREATE TABLE IF NOT EXISTS dashboard_default_keys (
  organization_id text PRIMARY KEY REFERENCES organizations(id),
  key_id text NOT NULL REFERENCES api_keys(id),
  sealed_secret text NOT NULL
);

CREATE TABLE IF NOT EXISTS dashboard_reveals (
  user_id text NOT NULL REFERENCES dashboard_users(id),
  revealed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS dashboard_reveals_user ON dashboard_reveals (user_id, revealed_at);
`;
