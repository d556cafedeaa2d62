import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject } from '../../lib/store/accounts.js';
import { createInvitation } from '../../lib/store/dashboard/members.js';
import { jsonPost, authed } from '../support/embedded.js';
import { until } from '../support/poll.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { DashboardClient, startDashboardService, type Json } from './dashboard-service.js';
import { forSuite } from '../support/suite-service.js';

/** Two people, two organizations, each with a key, a request, a batch job and a session. */
interface Tenant {
  client: DashboardClient;
  orgId: string;
  projectId: string;
  keyId: string;
  requestId: string;
  jobId: string;
  sessionId: string;
}

const env = forSuite(() => startDashboardService());
let site: TargetSite;
let a: Tenant;
let b: Tenant;

async function populate(client: DashboardClient, orgId: string, projectId: string): Promise<Tenant> {
  const key = await client.post(`/orgs/${orgId}/keys`, { name: `key of ${orgId}`, project_id: projectId, environment: 'live', scopes: ['scrape', 'batch', 'sessions', 'read'] });
  expect(key.status).toBe(201);
  const secret: string = key.body.secret;
  const scrape = await fetch(`${env.service.url}/v1/scrape`, jsonPost(secret, { url: site.url }));
  expect(scrape.status).toBe(200);
  const requestId = scrape.headers.get('x-request-id') ?? '';
  const job = (await (await fetch(`${env.service.url}/v1/batch`, jsonPost(secret, { urls: [site.url] }))).json()) as Json;
  const session = (await (await fetch(`${env.service.url}/v1/sessions`, jsonPost(secret, {}))).json()) as Json;
  await until(() => client.get(`/orgs/${orgId}/requests`), (page) => page.body.data.length >= 1);
  await until(() => client.get(`/orgs/${orgId}/projects/${projectId}/batch/${job.id}`), (answer) => answer.body.status === 'completed', 60_000);
  return { client, orgId, projectId, keyId: key.body.key.id, requestId, jobId: job.id, sessionId: session.id };
}

beforeAll(async () => {
  site = await startTargetSite();
  const clientA = new DashboardClient(env.dashboard.url);
  const meA = await clientA.signUp('a@example.com', 'password of a!', env.setupLink);
  a = await populate(clientA, meA.organizations[0].id, env.service.projectId);
  // The operator's second organization, whose owner joins by invitation.
  const org = await createOrganization(env.service.db, 'Org B', { monthlyCreditsMicro: 10_000_000_000, rateLimitPerSecond: 1000, concurrencyLimit: 10 });
  const project = await createProject(env.service.db, org.id, 'B project');
  const { token } = await createInvitation(env.service.db, { organizationId: org.id, role: 'owner', email: null, createdBy: null, expiresAt: new Date(Date.now() + 3_600_000) });
  const clientB = new DashboardClient(env.dashboard.url);
  await clientB.signUp('b@example.com', 'password of b!', `#/join/${token}`);
  b = await populate(clientB, org.id, project.id);
}, 180_000);
afterAll(async () => {
  await site?.close();
});

describe('tenant isolation', () => {
  it('lists only the member’s own organizations', async () => {
    expect((await a.client.get('/me')).body.organizations.map((o: Json) => o.id)).toEqual([a.orgId]);
    expect((await b.client.get('/me')).body.organizations.map((o: Json) => o.id)).toEqual([b.orgId]);
  });

  it('answers 404 for every view and action of another organization', async () => {
    const paths = [
      ['GET', ''],
      ['GET', '/keys'],
      ['GET', '/usage'],
      ['GET', '/requests'],
      ['GET', `/requests/${b.requestId}`],
      ['GET', '/members'],
      ['GET', '/projects'],
      ['GET', `/projects/${b.projectId}/batch`],
      ['GET', `/projects/${b.projectId}/batch/${b.jobId}`],
      ['GET', `/projects/${b.projectId}/batch/${b.jobId}/results`],
      ['POST', `/projects/${b.projectId}/batch/${b.jobId}/cancel`],
      ['GET', `/projects/${b.projectId}/sessions`],
      ['POST', `/sessions/${b.sessionId}/release`],
      ['POST', `/keys/${b.keyId}/revoke`],
      ['POST', '/default-key/reveal'],
      ['POST', '/invitations'],
    ] as const;
    for (const [method, path] of paths) {
      const answer = await a.client.request(method, `/orgs/${b.orgId}${path}`, method === 'POST' ? {} : undefined);
      expect({ path, status: answer.status, code: answer.body.code }).toEqual({ path, status: 404, code: 'ERR::REQUEST::NOT_FOUND' });
    }
  });

  it('answers 404 for another organization’s ids reached through the member’s own organization', async () => {
    const own = `/orgs/${a.orgId}`;
    const probes = [
      ['GET', `${own}/requests/${b.requestId}`],
      ['GET', `${own}/projects/${b.projectId}`],
      ['GET', `${own}/projects/${b.projectId}/batch/${b.jobId}`],
      ['GET', `${own}/projects/${a.projectId}/batch/${b.jobId}`],
      ['POST', `${own}/projects/${a.projectId}/batch/${b.jobId}/cancel`],
      ['GET', `${own}/projects/${b.projectId}/sessions`],
      ['POST', `${own}/sessions/${b.sessionId}/release`],
      ['POST', `${own}/keys/${b.keyId}/revoke`],
    ] as const;
    for (const [method, path] of probes) {
      const answer = await a.client.request(method, path, method === 'POST' ? {} : undefined);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
    }
    // Nothing of B changed.
    expect((await b.client.get(`/orgs/${b.orgId}/keys`)).body.keys.find((k: Json) => k.id === b.keyId).revoked_at).toBeNull();
    const sessions = await b.client.get(`/orgs/${b.orgId}/projects/${b.projectId}/sessions`);
    expect(sessions.body.sessions.find((s: Json) => s.id === b.sessionId).status).toBe('active');
  });

  it('shows each member only their own keys, requests, jobs, sessions and usage', async () => {
    for (const [me, other] of [[a, b], [b, a]] as const) {
      const base = `/orgs/${me.orgId}`;
      const keys = (await me.client.get(`${base}/keys`)).body.keys.map((k: Json) => k.id);
      expect(keys).toContain(me.keyId);
      expect(keys).not.toContain(other.keyId);
      const requests = (await me.client.get(`${base}/requests`)).body.data.map((r: Json) => r.id);
      expect(requests).toContain(me.requestId);
      expect(requests).not.toContain(other.requestId);
      const jobs = (await me.client.get(`${base}/projects/${me.projectId}/batch`)).body.batches.map((j: Json) => j.id);
      expect(jobs).toEqual([me.jobId]);
      const sessions = (await me.client.get(`${base}/projects/${me.projectId}/sessions`)).body.sessions.map((s: Json) => s.id);
      expect(sessions).toEqual([me.sessionId]);
      // Own scrape plus own batch item (both settled before this test): never the other organization's.
      const usage = await me.client.get(`${base}/usage`);
      expect(usage.body.by_day.reduce((sum: number, d: Json) => sum + d.requests, 0)).toBe(2);
      expect(usage.body.by_engine.reduce((sum: number, e: Json) => sum + e.requests, 0)).toBe(2);
    }
  });

  it('shows the same allowance figures as /v1/usage', async () => {
    const key = await a.client.post(`/orgs/${a.orgId}/keys`, { name: 'reader', project_id: a.projectId, environment: 'live', scopes: ['read'] });
    const api = (await (await fetch(`${env.service.url}/v1/usage`, authed(key.body.secret))).json()) as Json;
    const dashboard = (await a.client.get(`/orgs/${a.orgId}/usage`)).body;
    expect({ spent: dashboard.spent_micro, reserved: dashboard.reserved_micro, allowance: dashboard.allowance_micro, start: dashboard.period.start, end: dashboard.period.end }).toEqual({
      spent: api.spent_micro,
      reserved: api.reserved_micro,
      allowance: api.allowance_micro,
      start: api.period.start,
      end: api.period.end,
    });
  });
});
