import type { NextFunction, Request, Response } from 'express';
import { z } from 'zod';
import { ServiceError } from '../lib/errors/index.js';
import { membershipIn, type Membership, type Role } from '../lib/store/dashboard/members.js';
import { findProject } from '../lib/store/dashboard/projects.js';
import type { Queryable } from '../lib/store/db.js';
import type { DashboardContext } from './context.js';
import { userOf } from './auth/session.js';

/** Loads the signed-in user's membership of `:orgId`; another organization's id answers 404 like an absent one. */
export function loadMembership(context: DashboardContext) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const membership = await membershipIn(context.db, userOf(res).id, String(req.params.orgId));
    if (!membership) throw notFound('organization', String(req.params.orgId));
    res.locals.membership = membership;
    next();
  };
}

export function membershipOf(res: Response): Membership {
  return res.locals.membership as Membership;
}

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

/** Refuses with 403 ERR::AUTH::FORBIDDEN unless the member's role is at least `least` (docs/dashboard.md "Roles"). */
export function requireRole(res: Response, least: Role): Membership {
  const membership = membershipOf(res);
  if (RANK[membership.role] < RANK[least]) {
    throw new ServiceError('ERR::AUTH::FORBIDDEN', `This needs the ${least} role; you are ${membership.role}`);
  }
  return membership;
}

export function outranks(role: Role, other: Role): boolean {
  return RANK[role] >= RANK[other];
}

export function notFound(what: string, id: string): ServiceError {
  return new ServiceError('ERR::REQUEST::NOT_FOUND', `No ${what} ${id}`);
}

/** Strict zod parse of a body or query: an unknown field is a 400 naming it. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const name = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue.path.join('.') || 'body';
  const detail = issue.code === 'unrecognized_keys' ? 'is not a field of this request' : issue.message;
  throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `${name}: ${detail}`);
}

/** A project of the member's organization, or 404 as for an absent one. */
export async function projectOfMember(db: Queryable, res: Response, projectId: string) {
  const project = await findProject(db, membershipOf(res).organization.id, projectId);
  if (!project) throw notFound('project', projectId);
  return project;
}
