import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUlid } from '../../lib/ids.js';
import { authed, jsonPost } from '../support/embedded.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { SIMPLE_HTML, startTargetSite, type TargetSite } from '../support/target-site.js';

const service = embeddedForSuite({ engines: ['fetch'] });
let site: TargetSite;

beforeAll(async () => {
  site = await startTargetSite();
});
afterAll(async () => {
  await site?.close();
});

describe('the thinnest scrape, embedded mode', () => {
  it('returns the target HTML through the in-process bus with the scrape headers', async () => {
    const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: `${site.origin}/` }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('x-engine')).toBe('fetch');
    expect(response.headers.get('x-target-status')).toBe('200');
    expect(response.headers.get('x-credits-charged')).toBe('1');
    expect(isUlid(response.headers.get('x-request-id') ?? '')).toBe(true);
    expect(await response.text()).toBe(SIMPLE_HTML);
  });

  it('serves GET /v1/scrape the same way', async () => {
    const response = await fetch(`${service.url}/v1/scrape?url=${encodeURIComponent(`${site.origin}/`)}`, authed(service.secret));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(SIMPLE_HTML);
  });

  it('answers the spellings only the router matches (trailing slash, other case) as the exact path it serves first', async () => {
    const answer = async (path: string) => {
      const response = await fetch(`${service.url}${path}`, jsonPost(service.secret, { url: `${site.origin}/` }));
      const headers: string[] = [];
      response.headers.forEach((_value, name) => void (name === 'date' || headers.push(name)));
      return { status: response.status, headers: headers.sort(), body: await response.text() };
    };
    const exact = await answer('/v1/scrape');
    expect(exact).toMatchObject({ status: 200, body: SIMPLE_HTML });
    expect(exact.headers).toEqual(expect.arrayContaining(['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'concurrency-limit', 'concurrency-remaining']));
    expect(await answer('/v1/scrape/')).toEqual(exact);
    expect(await answer('/V1/Scrape')).toEqual(exact);
  });

  it('lists the embedded fetch worker under GET /v1/workers', async () => {
    const response = await fetch(`${service.url}/v1/workers`, authed(service.secret));
    const body = (await response.json()) as { workers: Array<Record<string, unknown>>; transport: string };
    expect(body.transport).toBe('memory');
    expect(body.workers).toHaveLength(1);
    expect(body.workers[0]).toMatchObject({
      engine: 'fetch',
      pool: 'default',
      status: 'ready',
      capacity: expect.any(Number),
      in_flight: expect.any(Number),
      version: 'test',
      host: expect.any(String),
      started_at: expect.any(String),
      last_seen_at: expect.any(String),
    });
  });

  it('answers an engine with no workers with 503 ENGINE::UNAVAILABLE at 0 credits', async () => {
    const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: `${site.origin}/`, engine: 'chromium' }));
    expect(response.status).toBe(503);
    expect(response.headers.get('x-credits-charged')).toBe('0');
    expect(await response.json()).toMatchObject({ code: 'ERR::ENGINE::UNAVAILABLE', retryable: true });
  });
});
