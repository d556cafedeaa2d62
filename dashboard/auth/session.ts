import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { ServiceError } from '../../lib/errors/index.js';
import { userOfSession } from '../../lib/store/dashboard/users.js';
import type { DashboardContext } from '../context.js';

export const SESSION_COOKIE = 'trawler_session';
export const CSRF_HEADER = 'x-csrf-token';

export interface SignedInUser {
  id: string;
  email: string;
  token: string;
}

/** The CSRF token of a session: derived from the session token, so nothing more is stored. */
export function csrfTokenOf(sessionToken: string): string {
  return createHash('sha256').update(`csrf:${sessionToken}`).digest('base64url');
}

export function sessionTokenOf(req: Request): string | null {
  const header = req.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === SESSION_COOKIE) return decodeURIComponent(rest.join('='));
  }
  return null;
}

export function setSessionCookie(req: Request, res: Response, token: string, expiresAt: Date): void {
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure: req.secure, path: '/', expires: expiresAt });
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', secure: req.secure, path: '/' });
}

/** Requires a live session: 401 ERR::AUTH::INVALID_TOKEN for a missing, unknown or expired one. */
export function requireUser(context: DashboardContext) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const token = sessionTokenOf(req);
    const user = token ? await userOfSession(context.db, token) : null;
    if (!token || !user) throw new ServiceError('ERR::AUTH::INVALID_TOKEN', 'Sign in again: the dashboard session is missing, unknown or expired');
    res.locals.user = { ...user, token } satisfies SignedInUser;
    next();
  };
}

export function userOf(res: Response): SignedInUser {
  return res.locals.user as SignedInUser;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every state change carries the session's CSRF token in X-CSRF-Token and, when the browser sends
 * one, an Origin equal to ours. Runs after requireUser; sign-in and sign-up check Origin only.
 */
export function checkCsrf(req: Request, res: Response, next: NextFunction): void {
  if (SAFE_METHODS.has(req.method)) return next();
  checkOrigin(req);
  // Compared as bytes: a header with non-ASCII characters has more bytes than characters.
  const sent = Buffer.from(req.get(CSRF_HEADER) ?? '', 'latin1');
  const expected = Buffer.from(csrfTokenOf(userOf(res).token));
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
    throw new ServiceError('ERR::AUTH::INVALID_TOKEN', 'The CSRF token is missing or wrong: reload the page');
  }
  next();
}

export function checkOrigin(req: Request): void {
  const origin = req.get('origin');
  if (origin === undefined) return;
  const own = `${req.protocol}://${req.get('host') ?? ''}`;
  if (origin !== own) throw new ServiceError('ERR::AUTH::INVALID_TOKEN', 'Cross-origin request refused');
}
