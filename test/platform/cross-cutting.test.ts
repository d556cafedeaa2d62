import { describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { isUlid } from '../../lib/ids.js';
import { serveMetrics } from '../../lib/metrics-server.js';
import { authed, jsonPost } from '../support/embedded.js';
import { problemOf } from '../support/answers.js';
import { embeddedForSuite } from '../support/suite-service.js';

const service = embeddedForSuite({ engines: [], env: { DOCS_URL: 'https://docs.example.test' } });

describe('cross-cutting rules', () => {
  it('puts a ULID X-Request-Id on every response, success or error', async () => {
    const answers = await Promise.all([
      fetch(`${service.url}/healthz`),
      fetch(`${service.url}/v1/workers`),
      fetch(`${service.url}/v1/workers`, authed(service.secret)),
      fetch(`${service.url}/nowhere`),
    ]);
    const ids = answers.map((r) => r.headers.get('x-request-id') ?? '');
    for (const id of ids) expect(isUlid(id)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('serves routes only under /v1 (rule 1)', async () => {
    const response = await fetch(`${service.url}/scrape`, jsonPost(service.secret, { url: 'http://127.0.0.1/' }));
    expect(response.status).toBe(404);
    expect(await problemOf(response, { requestId: true })).toMatchObject({ code: 'ERR::REQUEST::NOT_FOUND', status: 404, retryable: false });
  });

  it('refuses a body that is not application/json (rule 2)', async () => {
    const response = await fetch(`${service.url}/v1/scrape`, authed(service.secret, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ url: 'http://127.0.0.1/' }),
    }));
    expect(response.status).toBe(400);
    expect(await problemOf(response, { requestId: true })).toMatchObject({ code: 'ERR::REQUEST::INVALID' });
  });

  it('refuses an empty body and malformed JSON with REQUEST::INVALID', async () => {
    for (const body of ['', '{"url":']) {
      const response = await fetch(`${service.url}/v1/scrape`, authed(service.secret, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }));
      expect(response.status).toBe(400);
      expect(await problemOf(response, { requestId: true })).toMatchObject({ code: 'ERR::REQUEST::INVALID' });
    }
  });

  it('names an unknown body field (rule 3) and costs nothing', async () => {
    const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: 'http://127.0.0.1/', jsrender: true }));
    expect(response.status).toBe(400);
    expect(response.headers.get('x-credits-charged')).toBe('0');
    const body = await problemOf(response, { requestId: true });
    expect(body.code).toBe('ERR::REQUEST::INVALID_PARAMETER');
    expect(body.detail).toContain('jsrender');
  });

  it('names a field the body repeats (rule 3) and costs nothing', async () => {
    const response = await fetch(`${service.url}/v1/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.secret}`, 'content-type': 'application/json' },
      body: '{"url":"http://127.0.0.1/a","url":"http://127.0.0.1/b"}',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-credits-charged')).toBe('0');
    const body = await problemOf(response, { requestId: true });
    expect(body.code).toBe('ERR::REQUEST::INVALID_PARAMETER');
    expect(body.detail).toBe('url: appears twice in its object; send each field once');
  });

  it('names an unknown query parameter on GET /v1/scrape (rule 3)', async () => {
    const response = await fetch(`${service.url}/v1/scrape?url=${encodeURIComponent('http://127.0.0.1/')}&colour=red`, authed(service.secret));
    expect(response.status).toBe(400);
    const body = await problemOf(response, { requestId: true });
    expect(body.code).toBe('ERR::REQUEST::INVALID_PARAMETER');
    expect(body.detail).toContain('colour');
  });

  it('names a query parameter on the routes whose parameters are in the body or that take none (rule 3), and spends nothing', async () => {
    const json = jsonPost(service.secret, { url: 'http://127.0.0.1/' });
    const answers = await Promise.all([
      fetch(`${service.url}/v1/scrape?js_render=true`, json),
      fetch(`${service.url}/v1/batch?colour=red`, jsonPost(service.secret, { urls: ['http://127.0.0.1/'] })),
      fetch(`${service.url}/v1/webhooks?colour=red`, jsonPost(service.secret, { url: 'https://hooks.example.test/x' })),
      fetch(`${service.url}/v1/workers?colour=red`, authed(service.secret)),
    ]);
    for (const response of answers) {
      expect(response.status, response.url).toBe(400);
      const body = await problemOf(response, { requestId: true });
      expect(body.code).toBe('ERR::REQUEST::INVALID_PARAMETER');
      expect(body.detail).toMatch(/js_render|colour/);
    }
    expect(answers[0].headers.get('x-credits-charged')).toBe('0');
    const jobs = (await (await fetch(`${service.url}/v1/batch`, authed(service.secret))).json()) as { batches: unknown[] };
    expect(jobs.batches).toEqual([]);
    // A query-string key is no parameter: ignored as on every route but /v1/browser.
    const withKey = await fetch(`${service.url}/v1/workers?api_key=anything`, authed(service.secret));
    expect(withKey.status).toBe(200);
  });

  it('answers problem+json with every always-present field, type built from DOCS_URL (rule 4)', async () => {
    const response = await fetch(`${service.url}/v1/workers`);
    const body = await problemOf(response, { requestId: true });
    expect(body).toMatchObject({
      type: 'https://docs.example.test/errors#AUTH_MISSING_KEY',
      doc_url: 'https://docs.example.test/errors#AUTH_MISSING_KEY',
      title: expect.any(String),
      status: 401,
      code: 'ERR::AUTH::MISSING_KEY',
      retryable: false,
      target_status: null,
      instance: '/v1/workers',
    });
  });

  it('answers an unknown /v1 route with 404 NOT_FOUND once authenticated', async () => {
    const response = await fetch(`${service.url}/v1/nothing-here`, authed(service.secret));
    expect(response.status).toBe(404);
    expect(await problemOf(response, { requestId: true })).toMatchObject({ code: 'ERR::REQUEST::NOT_FOUND' });
  });

  it('answers a wrong method with 400 REQUEST::INVALID and an Allow header', async () => {
    const response = await fetch(`${service.url}/v1/scrape`, authed(service.secret, { method: 'DELETE' }));
    expect(response.status).toBe(400);
    expect(response.headers.get('allow')).toBe('GET, POST');
    expect(await problemOf(response, { requestId: true })).toMatchObject({ code: 'ERR::REQUEST::INVALID' });
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: 'http://127.0.0.1/', pad: 'x'.repeat(1_100_000) }));
    expect(response.status).toBe(413);
    expect(await problemOf(response, { requestId: true })).toMatchObject({ code: 'ERR::REQUEST::PAYLOAD_TOO_LARGE' });
  });

  it('answers JSON routes as application/json', async () => {
    const response = await fetch(`${service.url}/v1/workers`, authed(service.secret));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('GET /v1/browser', () => {
  it('is 501 ENGINE::UNAVAILABLE, not retryable', async () => {
    const response = await fetch(`${service.url}/v1/browser`, authed(service.secret));
    expect(response.status).toBe(501);
    expect(await problemOf(response, { requestId: true })).toMatchObject({ code: 'ERR::ENGINE::UNAVAILABLE', status: 501, retryable: false });
  });

  it('is the one route that reads a key from the query string', async () => {
    const viaQuery = await fetch(`${service.url}/v1/browser?apikey=${service.secret}`);
    expect(viaQuery.status).toBe(501);
    const elsewhere = await fetch(`${service.url}/v1/workers?apikey=${service.secret}`);
    expect(elsewhere.status).toBe(401);
    expect(await problemOf(elsewhere, { requestId: true })).toMatchObject({ code: 'ERR::AUTH::MISSING_KEY' });
    const scrape = await fetch(`${service.url}/v1/scrape?url=http%3A%2F%2F127.0.0.1%2F&api_key=${service.secret}`);
    expect(scrape.status).toBe(401);
  });
});

describe('health', () => {
  it('/healthz answers without a key', async () => {
    const response = await fetch(`${service.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok' });
  });

  it('/readyz reports the store and the bus', async () => {
    const response = await fetch(`${service.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'ready',
      checks: { store: { ok: true, kind: 'pglite' }, bus: { ok: true, transport: 'memory' } },
    });
  });

  it('serves /metrics with the trawler_ prefix on the metrics port, not on the API port', async () => {
    await fetch(`${service.url}/healthz`);
    const metrics = await serveMetrics(service.registry, '127.0.0.1', 0);
    try {
      const text = await (await fetch(`http://127.0.0.1:${(metrics.address() as AddressInfo).port}/metrics`)).text();
      expect(text).toContain('trawler_http_requests_total');
      expect(text).toContain('trawler_process_cpu_seconds_total');
    } finally {
      metrics.close();
    }
    const onApi = await fetch(`${service.url}/metrics`);
    expect(onApi.status).toBe(404);
    expect((await onApi.json()) as { code: string }).toMatchObject({ code: 'ERR::REQUEST::NOT_FOUND' });
  });
});
