import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupLink } from '../../dashboard/setup.js';
import { createInvitation } from '../../lib/store/dashboard/members.js';
import { createTestDatabase } from '../support/services.js';
import { DashboardClient, startDashboardService } from './dashboard-service.js';
import { forSuite } from '../support/suite-service.js';

// Issue 27 item 3: every start (every replica of the chart) prints an owner setup link; only one may work.
let database: { url: string; drop(): Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.drop());
const env = forSuite(() => startDashboardService({}, { databaseUrl: database.url }));

const PASSWORD = 'a long enough password';

async function signUpStatus(link: string, email: string): Promise<number> {
  const answer = await new DashboardClient(env.dashboard.url).post('/signup', { email, password: PASSWORD, invitation: link.split('/').at(-1) });
  return answer.status;
}

describe('owner setup links', () => {
  it('keeps one link live whatever replicas print at once, and none once the organization has an owner', async () => {
    // Six replicas starting together on one PostgreSQL, each printing a link (parallel statements on the pool).
    const printed = await Promise.all(Array.from({ length: 6 }, () => setupLink(env.dashboard.context)));
    const links = [env.setupLink, ...printed.map((link) => link!)];
    expect(new Set(links).size).toBe(7);
    const statuses: number[] = [];
    for (const [index, link] of links.entries()) statuses.push(await signUpStatus(link, `owner${index}@example.com`));
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 401)).toHaveLength(6);
    const owners = await env.service.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM dashboard_members WHERE role = 'owner'`);
    expect(Number(owners.rows[0].n)).toBe(1);
    expect(await setupLink(env.dashboard.context)).toBeNull();
  });

  it('refuses a setup link left from before this release once the organization has a member', async () => {
    // Two links an older release printed (no creator, role owner), then marked by migration 017.
    const stale = await createInvitation(env.service.db, { organizationId: env.service.organizationId, role: 'owner', email: null, createdBy: null, expiresAt: new Date(Date.now() + 3_600_000) });
    await env.service.db.query('UPDATE dashboard_invitations SET setup = true WHERE id = $1', [stale.invitation.id]);
    expect(await signUpStatus(`${env.dashboard.url}/#/join/${stale.token}`, 'late@example.com')).toBe(401);
  });
});
