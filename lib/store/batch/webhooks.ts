import { newId } from '../../ids.js';
import type { SecretBox } from '../../secret-box.js';
import type { Queryable } from '../db.js';

export interface WebhookEndpointRow {
  id: string;
  organization_id: string;
  project_id: string;
  url: string;
  created_at: Date;
}

/** What an endpoint's sealed secret is bound to (lib/secret-box.ts). */
function secretBinding(organizationId: string, endpointId: string): string {
  return `webhook-secret:${organizationId}:${endpointId}`;
}

/** Stores the endpoint with its secret sealed: the store never holds it in clear (docs/batch.md "Webhooks"). */
export async function insertEndpoint(
  db: Queryable,
  box: SecretBox,
  endpoint: Omit<WebhookEndpointRow, 'id' | 'created_at'> & { secret: string },
): Promise<WebhookEndpointRow> {
  const id = newId();
  const result = await db.query<WebhookEndpointRow>(
    `INSERT INTO webhook_endpoints (id, organization_id, project_id, url, secret, sealed) VALUES ($1, $2, $3, $4, $5, true)
     RETURNING id, organization_id, project_id, url, created_at`,
    [id, endpoint.organization_id, endpoint.project_id, endpoint.url, box.seal(endpoint.secret, secretBinding(endpoint.organization_id, id))],
  );
  return result.rows[0];
}

/** Seals the secrets of endpoints stored in clear before sealing existed; run at the gateway's start. */
export async function sealClearWebhookSecrets(db: Queryable, box: SecretBox): Promise<number> {
  const clear = await db.query<{ id: string; organization_id: string; secret: string }>('SELECT id, organization_id, secret FROM webhook_endpoints WHERE NOT sealed');
  let sealed = 0;
  for (const row of clear.rows) {
    const updated = await db.query('UPDATE webhook_endpoints SET secret = $2, sealed = true WHERE id = $1 AND NOT sealed', [
      row.id,
      box.seal(row.secret, secretBinding(row.organization_id, row.id)),
    ]);
    sealed += updated.rowCount;
  }
  return sealed;
}

/** The secret to sign a delivery with; null when it cannot be opened (sealed under another key, or moved). */
export function openWebhookSecret(box: SecretBox, delivery: Pick<DueDelivery, 'organization_id' | 'endpoint_id' | 'secret' | 'sealed'>): string | null {
  if (delivery.secret === null || delivery.organization_id === null || delivery.endpoint_id === null) return null;
  return delivery.sealed ? box.open(delivery.secret, secretBinding(delivery.organization_id, delivery.endpoint_id)) : delivery.secret;
}

/** A live endpoint of the organization, or null (deleted, unknown, or another organization's). */
export async function getEndpoint(db: Queryable, id: string, organizationId: string): Promise<WebhookEndpointRow | null> {
  const result = await db.query<WebhookEndpointRow>(
    `SELECT id, organization_id, project_id, url, created_at FROM webhook_endpoints
      WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL`,
    [id, organizationId],
  );
  return result.rows[0] ?? null;
}

export async function listEndpoints(db: Queryable, organizationId: string): Promise<WebhookEndpointRow[]> {
  const result = await db.query<WebhookEndpointRow>(
    `SELECT id, organization_id, project_id, url, created_at FROM webhook_endpoints
      WHERE organization_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC, id DESC`,
    [organizationId],
  );
  return result.rows;
}

export async function deleteEndpoint(db: Queryable, id: string, organizationId: string): Promise<boolean> {
  const result = await db.query(
    `UPDATE webhook_endpoints SET deleted_at = now() WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL`,
    [id, organizationId],
  );
  return result.rowCount > 0;
}

export async function enqueueDelivery(db: Queryable, delivery: { endpointId: string; jobId: string; event: string; payload: string }): Promise<void> {
  await db.query(
    `INSERT INTO webhook_deliveries (id, endpoint_id, job_id, event, payload) VALUES ($1, $2, $3, $4, $5)`,
    [newId(), delivery.endpointId, delivery.jobId, delivery.event, delivery.payload],
  );
}

export interface DueDelivery {
  id: string;
  event: string;
  payload: string;
  attempts: number;
  url: string | null;
  endpoint_id: string | null;
  organization_id: string | null;
  /** Sealed unless `sealed` is false (a row from before sealing, until the start-up pass seals it). */
  secret: string | null;
  sealed: boolean | null;
}

/** Claims due deliveries (leased, so a second gateway does not send the same one at the same time). */
export async function claimDeliveries(db: Queryable, owner: string, leaseMs: number, limit: number): Promise<DueDelivery[]> {
  const result = await db.query<DueDelivery>(
    `WITH due AS (
       SELECT id FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_expires_at IS NULL OR lease_expires_at < now())
        ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
     UPDATE webhook_deliveries d SET lease_owner = $1, lease_expires_at = now() + ($2::bigint * interval '1 millisecond'),
            attempts = d.attempts + 1
       FROM due LEFT JOIN webhook_deliveries x ON x.id = due.id
       LEFT JOIN webhook_endpoints e ON e.id = x.endpoint_id AND e.deleted_at IS NULL
      WHERE d.id = due.id
      RETURNING d.id, d.event, d.payload, d.attempts, e.url, e.id AS endpoint_id, e.organization_id, e.secret, e.sealed`,
    [owner, leaseMs, limit],
  );
  return result.rows;
}

export async function recordDeliveryOutcome(
  db: Queryable,
  id: string,
  outcome: { delivered: true } | { delivered: false; error: string; retryInMs: number | null },
): Promise<void> {
  if (outcome.delivered) {
    await db.query(
      `UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), lease_owner = NULL, lease_expires_at = NULL, last_error = NULL WHERE id = $1`,
      [id],
    );
    return;
  }
  await db.query(
    `UPDATE webhook_deliveries SET status = $2, last_error = $3, lease_owner = NULL, lease_expires_at = NULL,
            next_attempt_at = now() + (COALESCE($4, 0)::bigint * interval '1 millisecond') WHERE id = $1`,
    [id, outcome.retryInMs === null ? 'failed' : 'pending', outcome.error.slice(0, 500), outcome.retryInMs],
  );
}
