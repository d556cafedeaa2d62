/**
 * - `dashboard_invitations.setup`: the owner setup link printed at start (docs/dashboard.md
 *   "Accounts"): at most one unused one is live, and none works once its organization has a member.
 *   Rows made before this column are the ones with no creator.
 * - `dashboard_sign_in_attempts` replaces `dashboard_sign_in_failures`: sign-in attempts counted before
 *   the password is checked, per address (`email:<address>`) and per client (`client:<ip>`).
 * - `store_secrets`: the sealing key shared by every replica of one PostgreSQL when
 *   DASHBOARD_SECRET_KEY is unset (lib/store/sealing-key.ts).
 * - `webhook_endpoints.sealed`: the secret is sealed (lib/secret-box.ts); rows from before are sealed
 *   by the gateway's start-up pass (lib/store/batch/webhooks.ts sealClearWebhookSecrets).
 */
export const up = `
ALTER TABLE dashboard_invitations ADD COLUMN IF NOT EXISTS setup boolean NOT NULL DEFAULT false;
UPDATE dashboard_invitations SET setup = true WHERE created_by IS NULL AND role = 'owner';
CREATE TABLE IF NOT EXISTS dashboard_sign_in_attempts (
  subject text PRIMARY KEY,
  attempts integer NOT NULL,
  window_start timestamptz NOT NULL,
  locked_until timestamptz
);
DROP TABLE IF EXISTS dashboard_sign_in_failures;
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS sealed boolean NOT NULL DEFAULT false;
CREATE TABLE IF NOT EXISTS store_secrets (
  name text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
`;
