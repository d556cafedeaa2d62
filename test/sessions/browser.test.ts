import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { createdSession, sessionsClient, type SessionJson } from './sessions-client.js';

let site: TargetSite;
let api: ReturnType<typeof sessionsClient>;

beforeAll(async () => {
  site = await startTargetSite();
});
afterAll(async () => {
  await site?.close();
});
const service = embeddedForSuite({ engines: ['fetch', 'obscura'], env: { DEFAULT_RATE_LIMIT_PER_SECOND: '1000' } });
beforeAll(() => {
  api = sessionsClient(service);
});

describe('a browser session (obscura)', () => {
  it('defaults to obscura when deployed and carries cookies between renders', async () => {
    const created = await createdSession(await api.create());
    expect(created.engine).toBe('obscura');
    const first = await api.scrape({ url: `${site.origin}/cookies/set?visitor=7`, session_id: created.id });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-engine')).toBe('obscura');
    const second = await api.scrape({ url: `${site.origin}/echo`, session_id: created.id });
    expect(second.status).toBe(200);
    expect(await second.text()).toContain('visitor=7');
    const after = (await (await api.get(created.id)).json()) as SessionJson;
    expect(after.usage_count).toBe(2);
    expect(after.context?.cookies).toBe(1);
  });

  it('refuses engine=fetch on an obscura session with 400 INCOMPATIBLE_FLAGS', async () => {
    const created = await createdSession(await api.create({ engine: 'obscura' }));
    const response = await api.scrape({ url: `${site.origin}/echo`, session_id: created.id, engine: 'fetch' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('ERR::REQUEST::INCOMPATIBLE_FLAGS');
  });
});
