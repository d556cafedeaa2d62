import type { Db, Queryable } from '../db.js';

/** `maxAttempts` sign-ins not followed by a success within `windowMs` lock the subject for `lockMs`. */
export interface SignInPolicy {
  maxAttempts: number;
  windowMs: number;
  lockMs: number;
}

/** The window of every sign-in count (docs/dashboard.md "Brute force"): 15 minutes, and a lock as long. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;

/** What a sign-in is counted against: the address it names, and the client sending it. */
export const signInSubject = {
  address: (email: string) => `email:${email}`,
  client: (ip: string) => `client:${ip}`,
};

interface AttemptRow {
  attempts: number;
  window_start: Date;
  locked_until: Date | null;
}

/**
 * Counts one sign-in attempt before its password is checked, as if it will fail (a success gives it
 * back), under a lock on the subject's row: however many arrive at once, at most `maxAttempts` are
 * let through per window. Returns the milliseconds the subject stays locked, 0 when this one may try.
 */
export async function countSignInAttempt(db: Db, subject: string, policy: SignInPolicy, now = new Date()): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query(
      'INSERT INTO dashboard_sign_in_attempts (subject, attempts, window_start) VALUES ($1, 0, $2) ON CONFLICT (subject) DO NOTHING',
      [subject, now],
    );
    const row = (await tx.query<AttemptRow>('SELECT attempts, window_start, locked_until FROM dashboard_sign_in_attempts WHERE subject = $1 FOR UPDATE', [subject]))
      .rows[0];
    const lockedUntil = row.locked_until === null ? 0 : new Date(row.locked_until).getTime();
    if (lockedUntil > now.getTime()) return lockedUntil - now.getTime();
    const fresh = row.locked_until !== null || new Date(row.window_start).getTime() <= now.getTime() - policy.windowMs;
    const attempts = (fresh ? 0 : row.attempts) + 1;
    await tx.query('UPDATE dashboard_sign_in_attempts SET attempts = $2, window_start = $3, locked_until = $4 WHERE subject = $1', [
      subject,
      attempts,
      fresh ? now : row.window_start,
      attempts >= policy.maxAttempts ? new Date(now.getTime() + policy.lockMs) : null,
    ]);
    return 0;
  });
}

/** A successful sign-in gives back the attempt it was counted as, and lifts a lock that attempt set. */
export async function refundSignInAttempt(db: Queryable, subject: string, policy: SignInPolicy): Promise<void> {
  await db.query(
    `UPDATE dashboard_sign_in_attempts SET attempts = attempts - 1,
       locked_until = CASE WHEN attempts - 1 < $2 THEN NULL ELSE locked_until END
      WHERE subject = $1 AND attempts > 0`,
    [subject, policy.maxAttempts],
  );
}

/** A successful sign-in clears its address's count. */
export async function clearSignInAttempts(db: Queryable, subject: string): Promise<void> {
  await db.query('DELETE FROM dashboard_sign_in_attempts WHERE subject = $1', [subject]);
}

/**
 * Forgets counts whose window and lock are both over (they would start afresh anyway), so attempts on
 * many unknown addresses or from many clients do not grow the table for ever. The gateway runs it each minute.
 */
export async function purgeSignInAttempts(db: Queryable, olderThanMs: number, now = new Date()): Promise<number> {
  const result = await db.query(
    'DELETE FROM dashboard_sign_in_attempts WHERE window_start < $1 AND (locked_until IS NULL OR locked_until < $2)',
    [new Date(now.getTime() - olderThanMs), now],
  );
  return result.rowCount;
}
