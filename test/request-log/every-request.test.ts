import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../lib/store/accounts.js';
import { authed, jsonPost } from '../support/embedded.js';
import { embeddedForSuite } from '../support/suite-service.js';

const service = embeddedForSuite({ engines: [] });

async function entryFor(response: Response): Promise<Record<string, unknown>> {
  const id = response.headers.get('x-request-id');
  // The entry of a non-scrape answer is written when the answer finishes; poll for it.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const lookup = await fetch(`${service.url}/v1/requests/${id}`, authed(service.secret));
    if (lookup.status === 200) return (await lookup.json()) as Record<string, unknown>;
    if (Date.now() > deadline) throw new Error(`no request log entry for ${id}: ${lookup.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('every authenticated /v1 answer has a request log entry', () => {
  it('records a scrape refused before its handler (wrong Content-Type) as rejected with its code', async () => {
    const response = await fetch(`${service.url}/v1/scrape`, authed(service.secret, {
      method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}',
    }));
    expect(response.status).toBe(400);
    expect(await entryFor(response)).toMatchObject({ status: 'rejected', error_code: 'REQUEST_INVALID', credits_micro: 0, project_id: service.projectId });
  });

  it('records a missing scope as rejected', async () => {
    const { secret } = await createApiKey(service.db, { projectId: service.projectId, name: 'read-only', environment: 'live', scopes: ['read'] });
    const response = await fetch(`${service.url}/v1/scrape`, jsonPost(secret, { url: 'https://example.com/' }));
    expect(response.status).toBe(403);
    expect(await entryFor(response)).toMatchObject({ status: 'rejected', error_code: 'AUTH_INSUFFICIENT_SCOPE' });
  });

  it('records other routes as success', async () => {
    const response = await fetch(`${service.url}/v1/workers`, authed(service.secret));
    expect(response.status).toBe(200);
    expect(await entryFor(response)).toMatchObject({ status: 'success', error_code: null, engine: null, features: { method: 'GET' } });
  });

  it('does not record reads of the request log itself', async () => {
    const listing = await fetch(`${service.url}/v1/requests`, authed(service.secret));
    expect(listing.status).toBe(200);
    const id = listing.headers.get('x-request-id');
    const later = (await (await fetch(`${service.url}/v1/requests?limit=200`, authed(service.secret))).json()) as { data: Array<{ id: string }> };
    expect(later.data.map((e) => e.id)).not.toContain(id);
  });
});
