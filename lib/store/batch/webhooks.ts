import { newId } from '../../ids.js';
import type { Queryable } from '../db.js';

export interface WebhookEndpointRow {
  id: string;
  organization_id: string;
  project_id: string;
  url: string;
  secret: string;
  created_at: Date;
}

export async function insertEndpoint(db: Queryable, endpoint: Omit<WebhookEndpointRow, 'id' | 'created_at'>): Promise<WebhookEndpointRow> {
  const result = await db.query<WebhookEndpointRow>(
    `INSERT INTO webhook_endpoints (id, organization_id, project_id, url, secret) VALUES ($1, $2, $3, $4, $5)
     RETURNING id, organization_id, project_id, url, secret, created_at`,
    [newId(), endpoint.organization_id, endpoint.project_id, endpoint.url, endpoint.secret],
  );
  return result.rows[0];
}

/** A live endpoint of the organization, or null (deleted, unknown, or another organization's). */
export async function getEndpoint(db: Queryable, id: string, organizationId: string): Promise<WebhookEndpointRow | null> {
  const result = await db.query<WebhookEndpointRow>(
    `SELECT id, organization_id, project_id, url, secret, created_at FROM webhook_endpoints
      WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL`,
    [id, organizationId],
  );
  return result.rows[0] ?? null;
}

export async function listEndpoints(db: Queryable, organizationId: string): Promise<WebhookEndpointRow[]> {
  const result = await db.query<WebhookEndpointRow>(
    `SELECT id, organization_id, project_id, url, secret, created_at FROM webhook_endpoints
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
  secret: string | null;
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
      RETURNING d.id, d.event, d.payload, d.attempts, e.url, e.secret`,
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
