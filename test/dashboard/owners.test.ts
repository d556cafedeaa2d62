import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/services.js';
import { DashboardClient, startDashboardService } from './dashboard-service.js';
import { forSuite } from '../support/suite-service.js';

// Issue 27 item 7: two owners demoting (or removing) each other at once must leave the organization an owner.
let database: { url: string; drop(): Promise<void> };
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.drop());
const env = forSuite(() => startDashboardService({}, { databaseUrl: database.url }));
let first: DashboardClient;
let second: DashboardClient;
let orgId: string;
let firstId: string;
let secondId: string;
const PASSWORD = 'a long enough password';

beforeAll(async () => {
  first = new DashboardClient(env.dashboard.url);
  const me = await first.signUp('first@example.com', PASSWORD, env.setupLink);
  orgId = me.organizations[0].id;
  firstId = me.user.id;
  const invite = await first.post(`/orgs/${orgId}/invitations`, { role: 'owner' });
  second = new DashboardClient(env.dashboard.url);
  secondId = (await second.signUp('second@example.com', PASSWORD, invite.body.link)).user.id;
});
/** The owners, read by whichever of the two is still a member (a removed member no longer sees the list). */
async function owners(): Promise<string[]> {
  for (const client of [first, second]) {
    const answer = await client.get(`/orgs/${orgId}/members`);
    if (answer.status !== 200) continue;
    const members = answer.body.members as Array<{ user_id: string; role: string }>;
    return members.filter((m) => m.role === 'owner').map((m) => m.user_id);
  }
  throw new Error('neither member can read the organization');
}

async function bothOwners(): Promise<void> {
  const [only] = await owners();
  const promoter = only === firstId ? first : second;
  const other = only === firstId ? secondId : firstId;
  if ((await owners()).length < 2) expect((await promoter.request('PATCH', `/orgs/${orgId}/members/${other}`, { role: 'owner' })).status).toBe(200);
  expect((await owners()).sort()).toEqual([firstId, secondId].sort());
}

describe('last owner', () => {
  it('keeps one owner when two owners demote each other at once', async () => {
    for (let round = 0; round < 5; round += 1) {
      await bothOwners();
      const answers = await Promise.all([
        first.request('PATCH', `/orgs/${orgId}/members/${secondId}`, { role: 'admin' }),
        second.request('PATCH', `/orgs/${orgId}/members/${firstId}`, { role: 'admin' }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 403]);
      expect(await owners()).toHaveLength(1);
    }
  });

  it('keeps one owner when two owners remove each other at once', async () => {
    await bothOwners();
    const answers = await Promise.all([
      first.request('DELETE', `/orgs/${orgId}/members/${secondId}`),
      second.request('DELETE', `/orgs/${orgId}/members/${firstId}`),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([204, 404]);
    expect(await owners()).toHaveLength(1);
  });
});
