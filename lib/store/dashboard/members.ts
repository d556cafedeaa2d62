import { newId } from '../../ids.js';
import type { Organization } from '../accounts.js';
import type { Db, Queryable } from '../db.js';
import { hashToken, newToken } from './users.js';

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export interface Membership {
  organization: Organization;
  role: Role;
}

export async function addMember(db: Queryable, organizationId: string, userId: string, role: Role): Promise<void> {
  await db.query(
    `INSERT INTO dashboard_members (organization_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id, user_id) DO NOTHING`,
    [organizationId, userId, role],
  );
}

export async function membershipsOf(db: Queryable, userId: string): Promise<Membership[]> {
  const result = await db.query<{ organization: Organization; role: Role }>(
    `SELECT row_to_json(o) AS organization, m.role FROM dashboard_members m JOIN organizations o ON o.id = m.organization_id
      WHERE m.user_id = $1 ORDER BY o.created_at, o.id`,
    [userId],
  );
  return result.rows.map((row) => ({ role: row.role, organization: { ...row.organization, created_at: new Date(row.organization.created_at) } }));
}

/** The user's membership of one organization, or null: the caller answers 404 for it. */
export async function membershipIn(db: Queryable, userId: string, organizationId: string): Promise<Membership | null> {
  const all = await membershipsOf(db, userId);
  return all.find((m) => m.organization.id === organizationId) ?? null;
}

export async function listMembers(db: Queryable, organizationId: string): Promise<Array<{ user_id: string; email: string; role: Role; created_at: Date }>> {
  const result = await db.query<{ user_id: string; email: string; role: Role; created_at: Date }>(
    `SELECT m.user_id, u.email, m.role, m.created_at FROM dashboard_members m JOIN dashboard_users u ON u.id = m.user_id
      WHERE m.organization_id = $1 ORDER BY m.created_at, u.email`,
    [organizationId],
  );
  return result.rows;
}

export type Member = Awaited<ReturnType<typeof listMembers>>[number];

/**
 * Runs a change to an organization's members under a lock on its row, with the members as they stand
 * once the lock is held. Lock order (docs/dashboard.md "Lock order"): the organization's row, then its
 * member rows, then its invitations. Two owners demoting or removing each other at once are thereby
 * serialised: the second sees the first's change, so the organization never loses its last owner.
 */
export async function withMembersLocked<T>(db: Db, organizationId: string, work: (tx: Queryable, members: Member[]) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    // NO KEY UPDATE: serialises member changes without blocking rows that only reference the organization (keys, holds).
    await tx.query('SELECT id FROM organizations WHERE id = $1 FOR NO KEY UPDATE', [organizationId]);
    return work(tx, await listMembers(tx, organizationId));
  });
}

export async function setMemberRole(db: Queryable, organizationId: string, userId: string, role: Role): Promise<number> {
  const result = await db.query('UPDATE dashboard_members SET role = $3 WHERE organization_id = $1 AND user_id = $2', [organizationId, userId, role]);
  return result.rowCount;
}

export async function removeMember(db: Queryable, organizationId: string, userId: string): Promise<number> {
  const result = await db.query('DELETE FROM dashboard_members WHERE organization_id = $1 AND user_id = $2', [organizationId, userId]);
  return result.rowCount;
}

export async function renameOrganization(db: Queryable, organizationId: string, name: string): Promise<void> {
  await db.query('UPDATE organizations SET name = $2 WHERE id = $1', [organizationId, name]);
}

export interface Invitation {
  id: string;
  organization_id: string;
  role: Role;
  email: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
}

/** Creates an invitation; the returned token is its only copy (the link carries it in a URL fragment). */
export async function createInvitation(
  db: Queryable,
  input: { organizationId: string; role: Role; email: string | null; createdBy: string | null; expiresAt: Date },
): Promise<{ invitation: Invitation; token: string }> {
  const token = newToken();
  const result = await db.query<Invitation>(
    `INSERT INTO dashboard_invitations (id, token_hash, organization_id, role, email, created_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id, organization_id, role, email, created_at, expires_at, accepted_at`,
    [newId(), hashToken(token), input.organizationId, input.role, input.email, input.createdBy, input.expiresAt],
  );
  return { invitation: result.rows[0], token };
}

export async function listInvitations(db: Queryable, organizationId: string): Promise<Invitation[]> {
  const result = await db.query<Invitation>(
    `SELECT id, organization_id, role, email, created_at, expires_at, accepted_at FROM dashboard_invitations
      WHERE organization_id = $1 AND accepted_at IS NULL AND expires_at > now() ORDER BY created_at DESC`,
    [organizationId],
  );
  return result.rows;
}

/**
 * Marks a live invitation used and returns it; null when unknown, used or expired, and for a setup link
 * once its organization has a member. Call inside a transaction.
 */
export async function consumeInvitation(db: Queryable, token: string, now = new Date()): Promise<Invitation | null> {
  const result = await db.query<Invitation>(
    `UPDATE dashboard_invitations i SET accepted_at = $2
      WHERE token_hash = $1 AND accepted_at IS NULL AND expires_at > $2
        AND NOT (setup AND EXISTS (SELECT 1 FROM dashboard_members m WHERE m.organization_id = i.organization_id))
      RETURNING id, organization_id, role, email, created_at, expires_at, accepted_at`,
    [hashToken(token), now],
  );
  return result.rows[0] ?? null;
}

/**
 * The owner setup link's invitation: replaces every unused one before it, so one is live at a time
 * whichever replicas print one at once (under the members' lock, withMembersLocked).
 * Null when the organization has a member (no setup link is needed any more).
 */
export async function replaceSetupInvitation(db: Db, organizationId: string, expiresAt: Date): Promise<string | null> {
  return withMembersLocked(db, organizationId, async (tx, members) => {
    if (members.length > 0) return null;
    await tx.query('DELETE FROM dashboard_invitations WHERE organization_id = $1 AND setup AND accepted_at IS NULL', [organizationId]);
    const token = newToken();
    await tx.query(
      `INSERT INTO dashboard_invitations (id, token_hash, organization_id, role, email, created_by, expires_at, setup)
       VALUES ($1, $2, $3, 'owner', NULL, NULL, $4, true)`,
      [newId(), hashToken(token), organizationId, expiresAt],
    );
    return token;
  });
}

export async function deleteInvitation(db: Queryable, organizationId: string, id: string): Promise<number> {
  const result = await db.query('DELETE FROM dashboard_invitations WHERE organization_id = $1 AND id = $2 AND accepted_at IS NULL', [organizationId, id]);
  return result.rowCount;
}

/** The organization bootstrap created, when no member has joined any organization yet. */
export async function unclaimedBootstrapOrganization(db: Queryable): Promise<string | null> {
  const result = await db.query<{ id: string }>(
    `SELECT o.id FROM organizations o WHERE NOT EXISTS (SELECT 1 FROM dashboard_members)
      ORDER BY o.created_at, o.id LIMIT 1`,
  );
  return result.rows[0]?.id ?? null;
}
