import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { ServiceError } from '../../lib/errors/index.js';
import type { Db } from '../../lib/store/db.js';
import { addMember, consumeInvitation, membershipsOf } from '../../lib/store/dashboard/members.js';
import { SIGN_IN_WINDOW_MS, clearSignInAttempts, countSignInAttempt, refundSignInAttempt, signInSubject, type SignInPolicy } from '../../lib/store/dashboard/sign-in-attempts.js';
import { createSession, deleteSession, findUserByEmail, insertUser } from '../../lib/store/dashboard/users.js';
import { HashGate } from '../auth/hash-gate.js';
import { hashPassword, verifyAgainstNothing, verifyPassword } from '../auth/passwords.js';
import { checkCsrf, checkOrigin, clearSessionCookie, csrfTokenOf, requireUser, sessionTokenOf, setSessionCookie, userOf } from '../auth/session.js';
import type { DashboardContext } from '../context.js';
import { parseInput } from '../org-access.js';

/** Brute-force bound on sign-in: 5 attempts per address within 15 minutes without a success lock it for 15 minutes. */
export const SIGN_IN_POLICY: SignInPolicy = { maxAttempts: 5, windowMs: SIGN_IN_WINDOW_MS, lockMs: SIGN_IN_WINDOW_MS };

const email = z.string().trim().toLowerCase().pipe(z.email().max(254));
const SignIn = z.strictObject({ email, password: z.string().min(1).max(1024) });
const SignUp = z.strictObject({
  email,
  password: z.string().min(10, 'must be at least 10 characters').max(1024),
  invitation: z.string().min(20).max(200),
});
const Accept = z.strictObject({ invitation: z.string().min(20).max(200) });

/** Sign-up (by invitation), sign-in, sign-out and who am I; docs/dashboard.md "Accounts". */
export function accountRoutes(context: DashboardContext): Router {
  const router = Router();
  const { db } = context;
  const hashes = new HashGate(context.config.DASHBOARD_PASSWORD_HASHES);
  const clientPolicy: SignInPolicy = { ...SIGN_IN_POLICY, maxAttempts: context.config.DASHBOARD_SIGN_IN_CLIENT_LIMIT };

  router.post('/api/signup', async (req, res) => {
    checkOrigin(req);
    const body = parseInput(SignUp, req.body);
    const user = await db.transaction(async (tx) => {
      const invitation = await consumeInvitation(tx, body.invitation);
      if (!invitation) throw new ServiceError('ERR::AUTH::INVALID_TOKEN', 'The invitation link is unknown, used or expired');
      if (invitation.email !== null && invitation.email !== body.email) {
        throw new ServiceError('ERR::AUTH::INVALID_TOKEN', 'This invitation is for another email address');
      }
      const created = await insertUser(tx, body.email, await hashes.run(() => hashPassword(body.password)));
      if (!created) throw new ServiceError('ERR::REQUEST::CONFLICT', 'An account with this email exists: sign in, then accept the invitation');
      await addMember(tx, invitation.organization_id, created.id, invitation.role);
      return created;
    });
    await startSession(context, req, res, user.id, user.email, 201);
  });

  router.post('/api/signin', async (req, res) => {
    checkOrigin(req);
    const body = parseInput(SignIn, req.body);
    // Counted before the password is checked (docs/dashboard.md "Brute force"): the client first, then the address.
    const client = signInSubject.client(req.ip ?? 'unknown');
    const address = signInSubject.address(body.email);
    refuseWhileLocked(await countSignInAttempt(db, client, clientPolicy), 'from this client');
    refuseWhileLocked(await countSignInAttempt(db, address, SIGN_IN_POLICY), 'for this address');
    const user = await findUserByEmail(db, body.email);
    const good = await hashes.run(() => (user ? verifyPassword(body.password, user.password_hash) : verifyAgainstNothing(body.password)));
    if (!user || !good) throw new ServiceError('ERR::AUTH::INVALID_CREDENTIALS', 'Email or password is wrong');
    await clearSignInAttempts(db, address);
    await refundSignInAttempt(db, client, clientPolicy);
    await startSession(context, req, res, user.id, user.email, 200);
  });

  router.post('/api/signout', async (req, res) => {
    checkOrigin(req);
    const token = sessionTokenOf(req);
    if (token) await deleteSession(db, token);
    clearSessionCookie(req, res);
    res.status(204).end();
  });

  router.get('/api/me', requireUser(context), async (_req, res) => {
    const user = userOf(res);
    res.json(await meBody(db, user.id, user.email, user.token));
  });

  router.post('/api/invitations/accept', requireUser(context), checkCsrf, async (req, res) => {
    const body = parseInput(Accept, req.body);
    const user = userOf(res);
    const joined = await db.transaction(async (tx) => {
      const invitation = await consumeInvitation(tx, body.invitation);
      if (!invitation) throw new ServiceError('ERR::AUTH::INVALID_TOKEN', 'The invitation link is unknown, used or expired');
      if (invitation.email !== null && invitation.email !== user.email) {
        throw new ServiceError('ERR::AUTH::INVALID_TOKEN', 'This invitation is for another email address');
      }
      await addMember(tx, invitation.organization_id, user.id, invitation.role);
      return invitation.organization_id;
    });
    res.json({ organization_id: joined, ...(await meBody(db, user.id, user.email, user.token)) });
  });
  return router;
}

function refuseWhileLocked(lockedMs: number, what: string): void {
  if (lockedMs <= 0) return;
  const seconds = Math.ceil(lockedMs / 1000);
  throw new ServiceError('ERR::LIMIT::RATE_LIMITED', `Too many failed sign-ins ${what}; try again in ${seconds} s`, { retryAfterSeconds: seconds });
}

async function startSession(context: DashboardContext, req: Request, res: Response, userId: string, email: string, status: number) {
  const expiresAt = new Date(Date.now() + context.config.DASHBOARD_SESSION_HOURS * 3_600_000);
  const token = await createSession(context.db, userId, expiresAt);
  setSessionCookie(req, res, token, expiresAt);
  res.status(status).json(await meBody(context.db, userId, email, token));
}

async function meBody(db: Db, userId: string, email: string, token: string) {
  const memberships = await membershipsOf(db, userId);
  return {
    user: { id: userId, email },
    csrf_token: csrfTokenOf(token),
    organizations: memberships.map((m) => ({ id: m.organization.id, name: m.organization.name, status: m.organization.status, role: m.role })),
  };
}
