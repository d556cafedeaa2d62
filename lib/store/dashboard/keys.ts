import { SCOPES, createApiKey, type ApiKeyRecord } from '../accounts.js';
import type { SecretBox } from '../../secret-box.js';
import type { Queryable } from '../db.js';

export interface ListedKey extends ApiKeyRecord {
  last_used_at: Date | null;
}

const COLUMNS = 'id, organization_id, project_id, name, environment, display_prefix, scopes, created_at, expires_at, revoked_at, last_used_at';

/** The organization's keys as people see them (the dashboard's own internal keys are left out). */
export async function listOrganizationKeys(db: Queryable, organizationId: string): Promise<ListedKey[]> {
  const result = await db.query<ListedKey>(
    `SELECT ${COLUMNS} FROM api_keys WHERE organization_id = $1 AND NOT internal ORDER BY created_at DESC, id DESC`,
    [organizationId],
  );
  return result.rows;
}

export async function findOrganizationKey(db: Queryable, organizationId: string, keyId: string): Promise<ListedKey | null> {
  const result = await db.query<ListedKey>(`SELECT ${COLUMNS} FROM api_keys WHERE organization_id = $1 AND id = $2 AND NOT internal`, [organizationId, keyId]);
  return result.rows[0] ?? null;
}

/** Revokes one key of the organization; revoking a revoked key changes nothing. Returns false when absent. */
export async function revokeOrganizationKey(db: Queryable, organizationId: string, keyId: string): Promise<boolean> {
  const found = await findOrganizationKey(db, organizationId, keyId);
  if (!found) return false;
  await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [keyId]);
  return true;
}

/** Records a successful use, at most once a minute per key (the gateway calls it on a cache miss). */
export async function touchKeyUse(db: Queryable, keyId: string): Promise<void> {
  await db.query(
    `UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [keyId],
  );
}

/** A short-lived key the dashboard itself uses against the API; never listed. Expired ones are dropped here. */
export async function createInternalKey(db: Queryable, projectId: string, environment: 'live' | 'test', expiresAt: Date) {
  await db.query(`DELETE FROM api_keys WHERE internal AND expires_at < now() - interval '1 hour'`);
  const created = await createApiKey(db, { projectId, name: 'dashboard (internal)', environment, scopes: [...SCOPES], expiresAt });
  await db.query('UPDATE api_keys SET internal = true WHERE id = $1', [created.key.id]);
  return created;
}

/** What a Default key's sealed secret is bound to: a copy in another organization's or key's row does not open. */
export function defaultKeyBinding(organizationId: string, keyId: string): string {
  return `default-key:${organizationId}:${keyId}`;
}

/** The organization's Default key, stored sealed (see lib/secret-box.ts). */
export async function storeDefaultKey(db: Queryable, box: SecretBox, organizationId: string, keyId: string, secret: string): Promise<void> {
  await db.query(
    `INSERT INTO dashboard_default_keys (organization_id, key_id, sealed_secret) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id) DO UPDATE SET key_id = EXCLUDED.key_id, sealed_secret = EXCLUDED.sealed_secret`,
    [organizationId, keyId, box.seal(secret, defaultKeyBinding(organizationId, keyId))],
  );
}

/** Seals again, bound to their row, the Default keys sealed before bindings existed (`v1`); run at start. */
export async function resealUnboundDefaultKeys(db: Queryable, box: SecretBox): Promise<number> {
  const rows = await db.query<{ organization_id: string; key_id: string; sealed_secret: string }>(
    `SELECT organization_id, key_id, sealed_secret FROM dashboard_default_keys WHERE sealed_secret LIKE 'v1.%'`,
  );
  let resealed = 0;
  for (const row of rows.rows) {
    const secret = box.openUnbound(row.sealed_secret);
    if (secret === null) continue;
    const sealed = box.seal(secret, defaultKeyBinding(row.organization_id, row.key_id));
    const updated = await db.query('UPDATE dashboard_default_keys SET sealed_secret = $3 WHERE organization_id = $1 AND sealed_secret = $2', [
      row.organization_id,
      row.sealed_secret,
      sealed,
    ]);
    resealed += updated.rowCount;
  }
  return resealed;
}

export async function defaultKeyOf(db: Queryable, organizationId: string): Promise<{ key: ListedKey; sealed_secret: string } | null> {
  const result = await db.query<{ key_id: string; sealed_secret: string }>(
    'SELECT key_id, sealed_secret FROM dashboard_default_keys WHERE organization_id = $1',
    [organizationId],
  );
  const row = result.rows[0];
  if (!row) return null;
  const key = await findOrganizationKey(db, organizationId, row.key_id);
  return key ? { key, sealed_secret: row.sealed_secret } : null;
}

/**
 * Counts one reveal for the user unless `limit` reveals happened in the last minute; returns the
 * seconds to wait when refused, 0 when counted. Serialised per user by locking the user's row.
 */
export async function countReveal(db: Queryable, userId: string, limit: number, now = new Date()): Promise<number> {
  await db.query('SELECT id FROM dashboard_users WHERE id = $1 FOR UPDATE', [userId]);
  const since = new Date(now.getTime() - 60_000);
  await db.query('DELETE FROM dashboard_reveals WHERE user_id = $1 AND revealed_at <= $2', [userId, since]);
  const recent = await db.query<{ oldest: Date | null; n: number }>(
    'SELECT min(revealed_at) AS oldest, count(*)::int AS n FROM dashboard_reveals WHERE user_id = $1',
    [userId],
  );
  const { oldest, n } = recent.rows[0];
  if (Number(n) >= limit && oldest) return Math.max(1, Math.ceil((new Date(oldest).getTime() + 60_000 - now.getTime()) / 1000));
  await db.query('INSERT INTO dashboard_reveals (user_id, revealed_at) VALUES ($1, $2)', [userId, now]);
  return 0;
}
