import { Router } from 'express';
import { z } from 'zod';
import { ServiceError } from '../../lib/errors/index.js';
import {
  ROLES,
  countOwners,
  createInvitation,
  deleteInvitation,
  listInvitations,
  listMembers,
  removeMember,
  renameOrganization,
  setMemberRole,
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

  org.patch('/members/:userId', async (req, res) => {
    const { organization } = requireRole(res, 'owner');
    const body = parseInput(RoleBody, req.body);
    await db.transaction(async (tx) => {
      if (body.role !== 'owner' && req.params.userId === userOf(res).id && (await countOwners(tx, organization.id)) <= 1) {
        throw new ServiceError('ERR::REQUEST::CONFLICT', 'An organization keeps at least one owner');
      }
      if ((await setMemberRole(tx, organization.id, String(req.params.userId), body.role)) === 0) throw notFound('member', String(req.params.userId));
    });
    res.json({ user_id: req.params.userId, role: body.role });
  });

  org.delete('/members/:userId', async (req, res) => {
    const me = requireRole(res, 'admin');
    const members = await listMembers(db, me.organization.id);
    const target = members.find((m) => m.user_id === req.params.userId);
    if (!target) throw notFound('member', String(req.params.userId));
    if (!outranks(me.role, target.role)) throw new ServiceError('ERR::AUTH::FORBIDDEN', `An ${me.role} cannot remove an ${target.role}`);
    if (target.role === 'owner' && members.filter((m) => m.role === 'owner').length <= 1) {
      throw new ServiceError('ERR::REQUEST::CONFLICT', 'An organization keeps at least one owner');
    }
    await removeMember(db, me.organization.id, target.user_id);
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

/** The token rides in the URL fragment, which browsers never send to a server or write to its logs. */
export function invitationLink(context: DashboardContext, token: string): string {
  return `${context.publicUrl()}/#/join/${token}`;
}
