import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed } from '../support/embedded.js';
import { until } from '../support/poll.js';
import { setOrganizationStatus } from '../../lib/store/accounts.js';
import { DashboardClient, startDashboardService } from './dashboard-service.js';
import { forSuite } from '../support/suite-service.js';

const env = forSuite(() => startDashboardService());
let owner: DashboardClient;
let orgId: string;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  owner = new DashboardClient(env.dashboard.url);
  const me = await owner.signUp('owner@example.com', PASSWORD, env.setupLink);
  orgId = me.organizations[0].id;
});

describe('accounts', () => {
  it('makes the first user owner of the bootstrap organization through the one-time setup link', async () => {
    const me = await owner.get('/me');
    expect(me.body.organizations).toEqual([{ id: env.service.organizationId, name: 'Default organization', status: 'active', role: 'owner' }]);
    const again = await new DashboardClient(env.dashboard.url).post('/signup', { email: 'second@example.com', password: PASSWORD, invitation: env.setupLink.split('/').at(-1) });
    expect(again.status).toBe(401);
    expect(again.body.code).toBe('ERR::AUTH::INVALID_TOKEN');
  });

  it('answers a wrong password and an unknown address with 401 ERR::AUTH::INVALID_CREDENTIALS, a right one with a session cookie', async () => {
    const client = new DashboardClient(env.dashboard.url);
    for (const body of [{ email: 'owner@example.com', password: 'wrong password' }, { email: 'nobody@example.com', password: PASSWORD }]) {
      const answer = await client.post('/signin', body);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(answer.body).toMatchObject({ code: 'ERR::AUTH::INVALID_CREDENTIALS', status: 401, retryable: false });
    }
    const good = await client.post('/signin', { email: 'Owner@Example.com', password: PASSWORD });
    expect(good.status).toBe(200);
    const cookie = good.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^trawler_session=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).not.toMatch(/Secure/i); // plain http on loopback; Secure is set when served over TLS
  });

  it('stores only hashes of session tokens and scrypt hashes of passwords', async () => {
    const token = decodeURIComponent((await new DashboardClient(env.dashboard.url).post('/signin', { email: 'owner@example.com', password: PASSWORD })).headers.get('set-cookie')!.split(';')[0].split('=')[1]);
    const sessions = await env.service.db.query<{ token_hash: string }>('SELECT token_hash FROM dashboard_sessions');
    expect(sessions.rows.map((r) => r.token_hash)).not.toContain(token);
    expect(JSON.stringify(sessions.rows)).not.toContain(token);
    const users = await env.service.db.query<{ password_hash: string }>('SELECT password_hash FROM dashboard_users');
    expect(users.rows[0].password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(users.rows[0].password_hash).not.toContain(PASSWORD);
  });

  it('answers a missing, unknown or expired session with 401 ERR::AUTH::INVALID_TOKEN', async () => {
    const anonymous = await new DashboardClient(env.dashboard.url).get('/me');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('ERR::AUTH::INVALID_TOKEN');
    const forged = await fetch(`${env.dashboard.url}/api/me`, { headers: { cookie: 'trawler_session=forged-token-value' } });
    expect(forged.status).toBe(401);
    expect((await forged.json()).code).toBe('ERR::AUTH::INVALID_TOKEN');
    const client = new DashboardClient(env.dashboard.url);
    await client.post('/signin', { email: 'owner@example.com', password: PASSWORD });
    expect((await client.get('/me')).status).toBe(200);
    await env.service.db.query(`UPDATE dashboard_sessions SET expires_at = now() - interval '1 second'`);
    const expired = await client.get('/me');
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe('ERR::AUTH::INVALID_TOKEN');
    await owner.post('/signin', { email: 'owner@example.com', password: PASSWORD });
  });

  it('signs out: the session stops working', async () => {
    const client = new DashboardClient(env.dashboard.url);
    await client.post('/signin', { email: 'owner@example.com', password: PASSWORD });
    expect((await client.post('/signout')).status).toBe(204);
    expect((await client.get('/me')).status).toBe(401);
  });

  it('refuses a state change without the CSRF token or from another origin, and changes nothing', async () => {
    const before = (await owner.get(`/orgs/${orgId}/projects`)).body.projects.length;
    const noToken = await owner.request('POST', `/orgs/${orgId}/projects`, { name: 'csrf' }, { 'x-csrf-token': '' });
    expect(noToken.status).toBe(401);
    expect(noToken.body.code).toBe('ERR::AUTH::INVALID_TOKEN');
    // Same length in characters as a real token, more in bytes (issue 27: this answered 500).
    const nonAscii = await owner.request('POST', `/orgs/${orgId}/projects`, { name: 'csrf' }, { 'x-csrf-token': '\u00e9'.repeat(owner.csrf.length) });
    expect(nonAscii.status).toBe(401);
    expect(nonAscii.body.code).toBe('ERR::AUTH::INVALID_TOKEN');
    const crossOrigin = await owner.request('POST', `/orgs/${orgId}/projects`, { name: 'csrf' }, { origin: 'http://evil.example' });
    expect(crossOrigin.status).toBe(401);
    expect((await owner.get(`/orgs/${orgId}/projects`)).body.projects.length).toBe(before);
  });

  it('locks an address after 5 failed sign-ins: even the right password then gets 429 with Retry-After', async () => {
    const invite = await owner.post(`/orgs/${orgId}/invitations`, { role: 'member', email: 'victim@example.com' });
    const victim = new DashboardClient(env.dashboard.url);
    await victim.signUp('victim@example.com', PASSWORD, invite.body.link);
    const attacker = new DashboardClient(env.dashboard.url);
    for (let i = 0; i < 5; i += 1) expect((await attacker.post('/signin', { email: 'victim@example.com', password: `guess ${i}` })).status).toBe(401);
    const locked = await attacker.post('/signin', { email: 'victim@example.com', password: PASSWORD });
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('ERR::LIMIT::RATE_LIMITED');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('workspaces', () => {
  it('creates a workspace with a project and a live Default key carrying all five scopes; the creator is owner', async () => {
    const created = await owner.post('/orgs', { name: 'Acme' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Acme', role: 'owner', status: 'active' });
    const keys = (await owner.get(`/orgs/${created.body.id}/keys`)).body.keys;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ name: 'Default', environment: 'live', scopes: ['scrape', 'batch', 'sessions', 'browser', 'read'], is_default: true });
    const secret = (await owner.post(`/orgs/${created.body.id}/default-key/reveal`)).body.secret;
    expect((await fetch(`${env.service.url}/v1/usage`, authed(secret))).status).toBe(200);
    expect((await owner.request('PATCH', `/orgs/${created.body.id}`, { name: 'Acme Ltd' })).status).toBe(200);
    expect((await owner.get('/me')).body.organizations.map((o: { name: string }) => o.name)).toContain('Acme Ltd');
  });
});

describe('suspension', () => {
  it('shows a suspended organization why, while its keys answer 403 ERR::AUTH::FORBIDDEN', async () => {
    const created = await owner.post('/orgs', { name: 'Paused' });
    const secret = (await owner.post(`/orgs/${created.body.id}/default-key/reveal`)).body.secret;
    await setOrganizationStatus(env.service.db, created.body.id, 'suspended');
    const org = await owner.get(`/orgs/${created.body.id}`);
    expect(org.body.status).toBe('suspended');
    expect(org.body.suspended_reason).toContain('ERR::AUTH::FORBIDDEN');
    const api = await fetch(`${env.service.url}/v1/usage`, authed(secret));
    expect(api.status).toBe(403);
  });
});

describe('roles and invitations', () => {
  it('lets an invited member view but not create keys or projects; an invitation works once and only for its address', async () => {
    const invite = await owner.post(`/orgs/${orgId}/invitations`, { role: 'member', email: 'member@example.com' });
    expect(invite.status).toBe(201);
    const token = invite.body.link.split('/').at(-1);
    const wrong = await new DashboardClient(env.dashboard.url).post('/signup', { email: 'other@example.com', password: PASSWORD, invitation: token });
    expect(wrong.status).toBe(401);
    const member = new DashboardClient(env.dashboard.url);
    const me = await member.signUp('member@example.com', PASSWORD, invite.body.link);
    expect(me.organizations[0]).toMatchObject({ id: orgId, role: 'member' });
    expect((await member.get(`/orgs/${orgId}/keys`)).status).toBe(200);
    const refused = await member.post(`/orgs/${orgId}/keys`, { name: 'x', project_id: env.service.projectId, environment: 'test' });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('ERR::AUTH::FORBIDDEN');
    expect((await member.post(`/orgs/${orgId}/projects`, { name: 'no' })).status).toBe(403);
    expect((await member.post(`/orgs/${orgId}/invitations`, { role: 'member' })).status).toBe(403);
  });
});

describe('keys', () => {
  it('shows a new secret once, lists keys by their first 16 characters, and a revoked key gets 401 REVOKED_KEY from /v1', async () => {
    const created = await owner.post(`/orgs/${orgId}/keys`, { name: 'ci', project_id: env.service.projectId, environment: 'test', scopes: ['scrape', 'read'] });
    expect(created.status).toBe(201);
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^svc_test_[a-z2-7]{52}$/);
    const listed = await owner.get(`/orgs/${orgId}/keys`);
    const row = listed.body.keys.find((k: { id: string }) => k.id === created.body.key.id);
    expect(row).toMatchObject({ name: 'ci', environment: 'test', scopes: ['scrape', 'read'], display_prefix: secret.slice(0, 16), revoked_at: null });
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect((await fetch(`${env.service.url}/v1/usage`, authed(secret))).status).toBe(200);
    // "Last used" is written beside the request, not inside it: wait for it.
    const lastUsed = () => owner.get(`/orgs/${orgId}/keys`).then((a) => a.body.keys.find((k: { id: string }) => k.id === created.body.key.id).last_used_at);
    expect(await until(lastUsed, (value) => value !== null)).not.toBeNull();
    expect((await owner.post(`/orgs/${orgId}/keys/${created.body.key.id}/revoke`)).status).toBe(200);
    const after = await fetch(`${env.service.url}/v1/usage`, authed(secret));
    expect(after.status).toBe(401);
    expect((await after.json()).code).toBe('ERR::AUTH::REVOKED_KEY');
  });

  it('refuses unknown fields and past expiry with 400 naming them', async () => {
    const unknown = await owner.post(`/orgs/${orgId}/keys`, { name: 'x', project_id: env.service.projectId, environment: 'test', colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain('colour');
    const past = await owner.post(`/orgs/${orgId}/keys`, { name: 'x', project_id: env.service.projectId, environment: 'test', expires_at: '2000-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.detail).toContain('expires_at');
  });

  it('reveals the Default key 10 times per minute per user, then refuses with 429 and Retry-After', async () => {
    const client = new DashboardClient(env.dashboard.url);
    const invite = await owner.post(`/orgs/${orgId}/invitations`, { role: 'member' });
    await client.signUp('revealer@example.com', PASSWORD, invite.body.link);
    for (let i = 0; i < 10; i += 1) {
      const answer = await client.post(`/orgs/${orgId}/default-key/reveal`);
      expect(answer.status).toBe(200);
      expect(answer.body.secret).toBe(env.service.secret);
    }
    const refused = await client.post(`/orgs/${orgId}/default-key/reveal`);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('ERR::LIMIT::RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await owner.post(`/orgs/${orgId}/default-key/reveal`)).status).toBe(200); // per user
  });
});

describe('projects', () => {
  it('stores defaults validated by the scrape rules, and refuses what a scrape would refuse', async () => {
    const path = `/orgs/${orgId}/projects/${env.service.projectId}`;
    const saved = await owner.request('PATCH', path, { defaults: { links: true, engine: 'FETCH', custom_headers: { 'x-team': 'data' } } });
    expect(saved.status).toBe(200);
    expect(saved.body.defaults).toEqual({ links: true, engine: 'fetch', custom_headers: { 'x-team': 'data' } });
    const unknown = await owner.request('PATCH', path, { defaults: { url: 'https://example.com' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain('url');
    const clash = await owner.request('PATCH', path, { defaults: { mode: 'auto', js_render: true } });
    expect(clash.status).toBe(400);
    expect(clash.body.code).toBe('ERR::REQUEST::INCOMPATIBLE_FLAGS');
    const hop = await owner.request('PATCH', path, { defaults: { custom_headers: { connection: 'close' } } });
    expect(hop.status).toBe(400);
    expect((await owner.get(path)).body.defaults).toEqual(saved.body.defaults);
    await owner.request('PATCH', path, { defaults: {} });
  });
});
