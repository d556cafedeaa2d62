import { createHash, randomBytes } from 'node:crypto';
import { newId } from '../../ids.js';
import type { Queryable } from '../db.js';

export interface DashboardUser {
  id: string;
  email: string;
  password_hash: string;
  created_at: Date;
}

/** Session and invitation tokens: 32 random bytes; only their SHA-256 is stored. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export async function insertUser(db: Queryable, email: string, passwordHash: string): Promise<DashboardUser | null> {
  const result = await db.query<DashboardUser>(
    'INSERT INTO dashboard_users (id, email, password_hash) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING RETURNING *',
    [newId(), email, passwordHash],
  );
  return result.rows[0] ?? null;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<DashboardUser | null> {
  const result = await db.query<DashboardUser>('SELECT * FROM dashboard_users WHERE email = $1', [email]);
  return result.rows[0] ?? null;
}

export async function countUsers(db: Queryable): Promise<number> {
  const result = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM dashboard_users');
  return Number(result.rows[0].n);
}

/** Starts a session; returns the token, which exists nowhere else afterwards. */
export async function createSession(db: Queryable, userId: string, expiresAt: Date): Promise<string> {
  const token = newToken();
  await db.query('INSERT INTO dashboard_sessions (token_hash, user_id, expires_at) VALUES ($1, $2, $3)', [hashToken(token), userId, expiresAt]);
  return token;
}

/** The user of a live session, or null for an unknown or expired token. */
export async function userOfSession(db: Queryable, token: string, now = new Date()): Promise<{ id: string; email: string } | null> {
  const result = await db.query<{ id: string; email: string }>(
    `SELECT u.id, u.email FROM dashboard_sessions s JOIN dashboard_users u ON u.id = s.user_id
      WHERE s.token_hash = $1 AND s.expires_at > $2`,
    [hashToken(token), now],
  );
  return result.rows[0] ?? null;
}

export async function deleteSession(db: Queryable, token: string): Promise<void> {
  await db.query('DELETE FROM dashboard_sessions WHERE token_hash = $1 OR expires_at < now()', [hashToken(token)]);
}
