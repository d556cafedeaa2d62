import { createCipheriv, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/log.js';
import { openWebhookSecret, sealClearWebhookSecrets } from '../../lib/store/batch/webhooks.js';
import { resealUnboundDefaultKeys } from '../../lib/store/dashboard/keys.js';
import { openSealingBox } from '../../lib/store/sealing-key.js';
import { jsonPost } from '../support/embedded.js';
import { useTestStore } from '../support/test-store.js';
import { DashboardClient, startDashboardService } from './dashboard-service.js';
import { forSuite } from '../support/suite-service.js';

// Issue 27 item 7: sealed secrets bound to their organization and key; webhook secrets not stored in clear;
// replicas of one PostgreSQL without DASHBOARD_SECRET_KEY sealing with keys of their own.
const env = forSuite(() => startDashboardService());
let owner: DashboardClient;
let orgId: string;
beforeAll(async () => {
  owner = new DashboardClient(env.dashboard.url);
  orgId = (await owner.signUp('owner@example.com', 'a long enough password', env.setupLink)).organizations[0].id;
});

describe('sealed Default keys', () => {
  it('does not reveal a sealed Default key copied into another organization’s row', async () => {
    const other = (await owner.post('/orgs', { name: 'Other' })).body.id as string;
    const own = await owner.post(`/orgs/${orgId}/default-key/reveal`);
    expect(own.status).toBe(200);
    await env.service.db.query(
      `UPDATE dashboard_default_keys SET sealed_secret = (SELECT sealed_secret FROM dashboard_default_keys WHERE organization_id = $1) WHERE organization_id = $2`,
      [orgId, other],
    );
    const copied = await owner.post(`/orgs/${other}/default-key/reveal`);
    expect(copied.status).toBe(409);
    expect(JSON.stringify(copied.body)).not.toContain(own.body.secret);
  });

  it('keeps a Default key sealed before bindings existed revealable: the start-up pass seals it again, bound', async () => {
    const own = (await owner.post(`/orgs/${orgId}/default-key/reveal`)).body.secret as string;
    const key = Buffer.from(((await env.service.db.query<{ value: string }>(`SELECT value FROM store_secrets`)).rows[0].value), 'hex');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(own, 'utf8'), cipher.final()]);
    const v1 = ['v1', iv, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    await env.service.db.query('UPDATE dashboard_default_keys SET sealed_secret = $2 WHERE organization_id = $1', [orgId, v1]);
    expect(await resealUnboundDefaultKeys(env.service.db, env.service.gateway.context.box)).toBe(1);
    const after = await owner.post(`/orgs/${orgId}/default-key/reveal`);
    expect(after.body.secret).toBe(own);
  });
});

describe('webhook secrets', () => {
  const SECRET = 'a-shared-secret-of-some-length';

  async function createEndpoint(): Promise<string> {
    const response = await fetch(`${env.service.url}/v1/webhooks`, jsonPost(env.service.secret, { url: 'http://127.0.0.1:9/hook', secret: SECRET }));
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  }

  async function row(id: string) {
    const result = await env.service.db.query<{ id: string; organization_id: string; secret: string; sealed: boolean }>(
      'SELECT id, organization_id, secret, sealed FROM webhook_endpoints WHERE id = $1',
      [id],
    );
    return result.rows[0];
  }

  it('stores the secret sealed, never in clear', async () => {
    const stored = await row(await createEndpoint());
    expect(stored.secret).not.toContain(SECRET);
    expect(stored.secret).toMatch(/^v2\./);
    expect(openWebhookSecret(env.service.gateway.context.box, { ...stored, endpoint_id: stored.id })).toBe(SECRET);
  });

  it('seals a secret stored in clear before this release at start, and a sealed secret moved to another endpoint does not open', async () => {
    const box = env.service.gateway.context.box;
    const id = await createEndpoint();
    await env.service.db.query('UPDATE webhook_endpoints SET secret = $2, sealed = false WHERE id = $1', [id, SECRET]);
    expect(await sealClearWebhookSecrets(env.service.db, box)).toBe(1);
    const sealed = await row(id);
    expect(sealed).toMatchObject({ sealed: true });
    expect(sealed.secret).not.toContain(SECRET);
    expect(openWebhookSecret(box, { ...sealed, endpoint_id: id })).toBe(SECRET);
    const elsewhere = await createEndpoint();
    expect(openWebhookSecret(box, { ...sealed, endpoint_id: elsewhere })).toBeNull();
  });
});

describe('the sealing key of replicas sharing one PostgreSQL', () => {
  const store = useTestStore();
  const logger = createLogger('test', 'silent');

  it('is the same for every replica when DASHBOARD_SECRET_KEY is unset', async () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://replicas.invalid/db' });
    const [first, second] = await Promise.all([openSealingBox(store(), config, logger, false), openSealingBox(store(), config, logger, false)]);
    expect(second.open(first.seal('svc_live_secret', 'default-key:o:k'), 'default-key:o:k')).toBe('svc_live_secret');
  });

  it('is DASHBOARD_SECRET_KEY when set, not the store’s', async () => {
    const fromStore = await openSealingBox(store(), loadConfig({ DATABASE_URL: 'postgres://replicas.invalid/db' }), logger, false);
    const fromSetting = await openSealingBox(store(), loadConfig({ DASHBOARD_SECRET_KEY: 'ab'.repeat(32) }), logger, false);
    expect(fromSetting.open(fromStore.seal('x', 'b'), 'b')).toBeNull();
    const again = await openSealingBox(store(), loadConfig({ DASHBOARD_SECRET_KEY: 'ab'.repeat(32) }), logger, false);
    expect(again.open(fromSetting.seal('x', 'b'), 'b')).toBe('x');
  });
});
