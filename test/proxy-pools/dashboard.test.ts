import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonPost } from '../support/embedded.js';
import { until } from '../support/poll.js';
import { startExitTarget, startStaticExit, type ExitServer, type ExitTarget } from '../support/pool-exits.js';
import { writePoolFile } from '../support/pool-service.js';
import { DashboardClient, startDashboardService } from '../dashboard/dashboard-service.js';
import { forSuite } from '../support/suite-service.js';

let target: ExitTarget;
let exits: ExitServer[];
let pool: { file: string; remove(): void };
let owner: DashboardClient;
let orgId: string;

beforeAll(async () => {
  target = await startExitTarget();
  exits = await Promise.all([startStaticExit({ address: '127.0.0.90', auth: { user: 'u', pass: 'hunter2-secret' } }), startStaticExit({ address: '127.0.0.91', refuseWith: 407 })]);
  pool = writePoolFile([
    { id: 'dc-ok', url: exits[0].url, tier: 'datacenter', country: 'NL', provider: 'own', region: 'eu-west' },
    { id: 'resi-refused', url: 'http://u:other-secret@127.0.0.1:' + exits[1].port, tier: 'residential', country: 'DE' },
  ]);
}, 180_000);
afterAll(async () => {
  pool?.remove();
  await Promise.all([target?.close(), ...(exits ?? []).map((e) => e.close())]);
});

const env = forSuite(() => startDashboardService({ PROXY_POOLS_FILE: pool.file, PROXY_HEALTH_REFRESH_MS: '0' }));

beforeAll(async () => {
  owner = new DashboardClient(env.dashboard.url);
  const me = await owner.signUp('owner@example.com', 'a long enough password', env.setupLink);
  orgId = me.organizations[0].id;
});

describe('the dashboard page of proxy exits', () => {
  it('lists every exit with its shared health and never a credential', async () => {
    const scrape = (body: Record<string, unknown>) => fetch(`${env.service.url}/v1/scrape`, jsonPost(env.service.secret, { url: target.url, cache: false, ...body }));
    expect((await scrape({})).status).toBe(200);
    expect((await scrape({ premium_proxy: true })).status).toBe(502);
    // A gateway writes its successes once a second: wait for that state.
    const answer = await until(
      () => owner.get(`/orgs/${orgId}/proxy-exits`),
      (a) => (a.body.exits as Array<Record<string, unknown>> | undefined)?.some((e) => e.key === 'dc-ok' && e.successes === 1) === true,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.configured).toBe(true);
    const byKey = Object.fromEntries((answer.body.exits as Array<Record<string, unknown>>).map((e) => [e.key, e]));
    expect(byKey['dc-ok']).toMatchObject({ tier: 'datacenter', country: 'NL', provider: 'own', region: 'eu-west', state: 'healthy', successes: 1, endpoint: `http://127.0.0.1:${exits[0].port}` });
    expect(byKey['resi-refused']).toMatchObject({ tier: 'residential', state: 'auth_failed', failures: 1 });
    const text = JSON.stringify(answer.body);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('other-secret');
  });
});
