import { Router } from 'express';
import { z } from 'zod';
import { ServiceError } from '../../lib/errors/index.js';
import {
  ROLES,
  type Member,
  type Role,
  createInvitation,
  deleteInvitation,
  listInvitations,
  listMembers,
  removeMember,
  renameOrganization,
  setMemberRole,
  withMembersLocked,
} from '../../lib/store/dashboard/members.js';
import { userOf } from '../auth/session.js';
import type { DashboardContext } from '../context.js';
import { createWorkspace } from '../default-key.js';
import { membershipOf, notFound, outranks, parseInput, requireRole } from '../org-access.js';

const INVITATION_HOURS = 72;
const Name = z.strictObject({ name: z.string().trim().min(1).max(100) });
const Invite = z.strictObject({ role: z.enum(ROLES).default('member'), email: z.string().trim().toLowerCase().pipe(z.email()).optional() });
const RoleBody = z.strictObject({ role: z.enum(ROLES) });

/** Workspaces (organizations), members and invitations. `org` routes are mounted behind loadMembership. */
export function workspaceRoutes(context: DashboardContext): { top: Router; org: Router } {
  const top = Router();
  const org = Router({ mergeParams: true });
  const { db } = context;

  top.post('/orgs', async (req, res) => {
    const body = parseInput(Name, req.body);
    const organization = await createWorkspace(context, userOf(res).id, body.name);
    res.status(201).json({ id: organization.id, name: organization.name, status: organization.status, role: 'owner' });
  });

  org.get('/', (_req, res) => {
    const { organization, role } = membershipOf(res);
    res.json({
      id: organization.id,
      name: organization.name,
      status: organization.status,
      role,
      created_at: organization.created_at,
      monthly_credits: organization.monthly_credits_micro / 1_000_000,
      rate_limit_per_second: organization.rate_limit_per_second,
      concurrency_limit: organization.concurrency_limit,
      ...(organization.status === 'suspended'
        ? { suspended_reason: 'The operator suspended this organization: every API key answers 403 ERR::AUTH::FORBIDDEN until it is activated again (trawler orgs activate).' }
        : {}),
    });
  });

  org.patch('/', async (req, res) => {
    const { organization } = requireRole(res, 'owner');
    const body = parseInput(Name, req.body);
    await renameOrganization(db, organization.id, body.name);
    res.json({ id: organization.id, name: body.name });
  });

  org.get('/members', async (_req, res) => {
    res.json({ members: await listMembers(db, membershipOf(res).organization.id) });
  });

  // Roles are read again under the members' lock: the membership loaded with the request may be stale.
  org.patch('/members/:userId', async (req, res) => {
    const { organization } = requireRole(res, 'owner');
    const body = parseInput(RoleBody, req.body);
    const userId = String(req.params.userId);
    await withMembersLocked(db, organization.id, async (tx, members) => {
      currentRole(members, organization.id, userOf(res).id, 'owner');
      const target = members.find((m) => m.user_id === userId);
      if (!target) throw notFound('member', userId);
      if (target.role === 'owner' && body.role !== 'owner') keepAnOwner(members);
      await setMemberRole(tx, organization.id, userId, body.role);
    });
    res.json({ user_id: userId, role: body.role });
  });

  org.delete('/members/:userId', async (req, res) => {
    const { organization } = requireRole(res, 'admin');
    const userId = String(req.params.userId);
    await withMembersLocked(db, organization.id, async (tx, members) => {
      const role = currentRole(members, organization.id, userOf(res).id, 'admin');
      const target = members.find((m) => m.user_id === userId);
      if (!target) throw notFound('member', userId);
      if (!outranks(role, target.role)) throw new ServiceError('ERR::AUTH::FORBIDDEN', `An ${role} cannot remove an ${target.role}`);
      if (target.role === 'owner') keepAnOwner(members);
      await removeMember(tx, organization.id, userId);
    });
    res.status(204).end();
  });

  org.get('/invitations', async (_req, res) => {
    requireRole(res, 'admin');
    res.json({ invitations: await listInvitations(db, membershipOf(res).organization.id) });
  });

  org.post('/invitations', async (req, res) => {
    const me = requireRole(res, 'admin');
    const body = parseInput(Invite, req.body);
    if (!outranks(me.role, body.role)) throw new ServiceError('ERR::AUTH::FORBIDDEN', `An ${me.role} cannot invite an ${body.role}`);
    const { invitation, token } = await createInvitation(db, {
      organizationId: me.organization.id,
      role: body.role,
      email: body.email ?? null,
      createdBy: userOf(res).id,
      expiresAt: new Date(Date.now() + INVITATION_HOURS * 3_600_000),
    });
    res.status(201).json({ invitation, link: invitationLink(context, token) });
  });

  org.delete('/invitations/:id', async (req, res) => {
    const me = requireRole(res, 'admin');
    if ((await deleteInvitation(db, me.organization.id, String(req.params.id))) === 0) throw notFound('invitation', String(req.params.id));
    res.status(204).end();
  });
  return { top, org };
}

/** The acting user's role as it stands under the lock: 404 when no longer a member (as loadMembership), 403 below `least`. */
function currentRole(members: Member[], organizationId: string, userId: string, least: Role): Role {
  const role = members.find((m) => m.user_id === userId)?.role;
  if (!role) throw notFound('organization', organizationId);
  if (!outranks(role, least)) throw new ServiceError('ERR::AUTH::FORBIDDEN', `This needs the ${least} role; you are ${role}`);
  return role;
}

function keepAnOwner(members: Member[]): void {
  if (members.filter((m) => m.role === 'owner').length <= 1) throw new ServiceError('ERR::REQUEST::CONFLICT', 'An organization keeps at least one owner');
}

/** The token rides in the URL fragment, which browsers never send to a server or write to its logs. */
export function invitationLink(context: DashboardContext, token: string): string {
  return `${context.publicUrl()}/#/join/${token}`;
}
