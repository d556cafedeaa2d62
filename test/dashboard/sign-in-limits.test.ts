import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashGate, WAITING_PER_HASH } from '../../dashboard/auth/hash-gate.js';
import { ServiceError } from '../../lib/errors/index.js';
import { purgeSignInAttempts, SIGN_IN_WINDOW_MS } from '../../lib/store/dashboard/sign-in-attempts.js';
import { createTestDatabase } from '../support/services.js';
import { DashboardClient, startDashboardService } from './dashboard-service.js';
import { forSuite } from '../support/suite-service.js';

// Issue 27 item 4: the lock is counted before the password is checked; a per-client limit; a bound on hashes.
let database: { url: string; drop(): Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.drop());
const env = forSuite(() => startDashboardService({ DASHBOARD_SIGN_IN_CLIENT_LIMIT: '20', DASHBOARD_PASSWORD_HASHES: '8' }, { databaseUrl: database.url }));
let owner: DashboardClient;
const PASSWORD = 'correct horse battery';
beforeAll(async () => {
  owner = new DashboardClient(env.dashboard.url);
  await owner.signUp('owner@example.com', PASSWORD, env.setupLink);
});
function signIn(email: string, password: string, client: string) {
  return new DashboardClient(env.dashboard.url).request('POST', '/signin', { email, password }, { 'x-forwarded-for': client });
}

describe('sign-in brute force', () => {
  it('checks at most 5 of 12 wrong passwords sent at once for one address; the others get 429 with Retry-After', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => signIn('owner@example.com', `wrong guess ${i}`, '198.51.100.1')));
    expect(answers.filter((a) => a.status === 401)).toHaveLength(5);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(7);
    for (const answer of refused) {
      expect(answer.body.code).toBe('ERR::LIMIT::RATE_LIMITED');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect((await signIn('owner@example.com', PASSWORD, '198.51.100.2')).status).toBe(429);
  });

  it('locks unknown addresses too, counted the same way', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => signIn('nobody@example.com', 'whatever it is', '198.51.100.3')));
    expect(answers.map((a) => a.status).sort()).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
  });

  it('refuses a client after DASHBOARD_SIGN_IN_CLIENT_LIMIT failed sign-ins, whatever addresses it tries; other clients still sign in', async () => {
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => signIn(`spray${i}@example.com`, 'some password', '203.0.113.9')));
    expect(answers.filter((a) => a.status === 401)).toHaveLength(20);
    expect(answers.filter((a) => a.status === 429 && a.body.detail.includes('from this client'))).toHaveLength(5);
    expect((await signIn('spray99@example.com', 'some password', '203.0.113.9')).status).toBe(429);
    expect((await signIn('spray99@example.com', 'some password', '203.0.113.10')).status).toBe(401);
  });

  it('gives a successful sign-in its attempt back, so a client that signs in is not locked out by it', async () => {
    const orgId = (await owner.get('/me')).body.organizations[0].id;
    const invite = await owner.post(`/orgs/${orgId}/invitations`, { role: 'member' });
    await new DashboardClient(env.dashboard.url).signUp('member@example.com', PASSWORD, invite.body.link);
    const client = '203.0.113.20';
    for (let i = 0; i < 19; i += 1) expect((await signIn(`wrong${i}@example.com`, 'some password', client)).status).toBe(401);
    expect((await signIn('member@example.com', PASSWORD, client)).status).toBe(200);
    expect((await signIn('wrong-last@example.com', 'some password', client)).status).toBe(401);
    expect((await signIn('member@example.com', PASSWORD, client)).status).toBe(429);
  });
});

describe('sign-in counts', () => {
  it('forgets counts whose window and lock are over, and keeps live ones', async () => {
    const db = env.service.db;
    await db.query(
      `INSERT INTO dashboard_sign_in_attempts (subject, attempts, window_start, locked_until) VALUES
         ('email:old@example.com', 3, now() - interval '1 hour', NULL),
         ('email:locked@example.com', 5, now() - interval '1 hour', now() + interval '5 minutes'),
         ('email:fresh@example.com', 2, now(), NULL)`,
    );
    expect(await purgeSignInAttempts(db, SIGN_IN_WINDOW_MS)).toBeGreaterThanOrEqual(1);
    const left = await db.query<{ subject: string }>(`SELECT subject FROM dashboard_sign_in_attempts WHERE subject IN ('email:old@example.com', 'email:locked@example.com', 'email:fresh@example.com') ORDER BY subject`);
    expect(left.rows.map((row) => row.subject)).toEqual(['email:fresh@example.com', 'email:locked@example.com']);
  });
});

describe('password hash bound', () => {
  it('runs at most DASHBOARD_PASSWORD_HASHES hashes at once, lets 4 per hash wait and refuses the next with 429', async () => {
    const gate = new HashGate(2);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let running = 0;
    let most = 0;
    const work = async () => {
      running += 1;
      most = Math.max(most, running);
      await held;
      running -= 1;
      return 'done';
    };
    const accepted = Array.from({ length: 2 * (1 + WAITING_PER_HASH) }, () => gate.run(work));
    let refused: unknown;
    try {
      await gate.run(work);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).code).toBe('ERR::LIMIT::CONCURRENCY_EXCEEDED');
    release();
    expect(await Promise.all(accepted)).toEqual(Array(10).fill('done'));
    expect(most).toBe(2);
    expect(await gate.run(work)).toBe('done');
  });
});
