/**
 * Managed proxy pools (docs/proxy-pools.md): the health of every exit, and of every exit and target
 * domain, shared by every gateway replica and kept across restarts; and the exit each sticky key of a
 * project is assigned, so every replica sends a sticky key's requests through the same exit.
 * - `proxy_exit_health`: `domain` is '' for the exit's own row. `cooldown_until` is epoch ms (0: none).
 *   `auth_failed_hash` is the credential digest a 407 refused: out of rotation until it changes.
 * - `proxy_sticky_exits`: one row per project and sticky key; `session_token` is what a provider
 *   gateway's username carries, so the provider keeps the same exit address.
 */
export const up = `
CREATE TABLE IF NOT EXISTS proxy_exit_health (
  exit_key text NOT NULL,
  domain text NOT NULL DEFAULT '',
  successes bigint NOT NULL DEFAULT 0,
  failures bigint NOT NULL DEFAULT 0,
  bans bigint NOT NULL DEFAULT 0,
  consecutive integer NOT NULL DEFAULT 0,
  cooldown_until bigint NOT NULL DEFAULT 0,
  auth_failed_hash text,
  last_error text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (exit_key, domain)
);
CREATE INDEX IF NOT EXISTS proxy_exit_health_cooling ON proxy_exit_health (cooldown_until) WHERE domain <> '';
CREATE TABLE IF NOT EXISTS proxy_sticky_exits (
  project_id text NOT NULL,
  sticky_key text NOT NULL,
  exit_key text NOT NULL,
  session_token text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, sticky_key)
);
CREATE INDEX IF NOT EXISTS proxy_sticky_exits_updated ON proxy_sticky_exits (updated_at);
`;
