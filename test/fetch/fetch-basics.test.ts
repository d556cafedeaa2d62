import { describe, expect, it } from 'vitest';
import { SIMPLE_HTML, COMPRESSED_TEXT, TINY_PDF } from '../support/target-site.js';
import { engineContext, fetchJob, rejection, useFetchEngine } from './fetch-engine.js';

const fixture = useFetchEngine();

describe.each([true, false])('fetch engine, impersonate=%s', (impersonate) => {
  const get = (path: string, extra: Record<string, unknown> = {}) =>
    fixture.engine.fetch(fetchJob({ url: `${fixture.site.origin}${path}`, impersonate, ...extra }), engineContext());

  it('returns the page with status, media type and decoded text', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.mediaType).toBe('text/html');
    expect(page.text).toBe(SIMPLE_HTML);
    expect(page.finalUrl).toBe(`${fixture.site.origin}/`);
    expect(page.blocked).toBeNull();
    expect(page.proxy).toEqual({ source: 'direct', endpoint: null, country: null });
    expect(page.attempts).toEqual([expect.objectContaining({ n: 1, engine: 'fetch', outcome: 'ok', error_code: null })]);
    expect(page.bytesIn).toBeGreaterThan(SIMPLE_HTML.length);
  });

  it.each(['/gzip', '/deflate', '/br', '/zstd'])('decodes %s', async (path) => {
    const page = await get(path);
    expect(page.text).toBe(COMPRESSED_TEXT);
    expect(page.headers['content-encoding']).toBeUndefined();
  });

  it('returns a target 403 or 500 as a page, not an error', async () => {
    expect((await get('/status/500')).status).toBe(500);
    const forbidden = await get('/bare-403');
    expect(forbidden.status).toBe(403);
    expect(forbidden.blocked).toBeNull();
  });

  it('keeps binary bodies as bytes with null text', async () => {
    const page = await get('/pdf');
    expect(page.mediaType).toBe('application/pdf');
    expect(page.text).toBeNull();
    expect(page.body.equals(TINY_PDF)).toBe(true);
  });

  it('decodes JSON as text', async () => {
    const page = await get('/json');
    expect(page.mediaType).toBe('application/json');
    expect(JSON.parse(page.text ?? '')).toEqual({ name: 'trawler', items: [1, 2, 3], note: 'caf\u00e9' });
  });

  it('sends every method without a body, and custom headers', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const page = await get('/echo', { method, custom_headers: { 'X-Trawler-Test': 'yes' } });
      const echo = JSON.parse(page.text ?? '{}') as { method: string; headers: Record<string, string>; body: string };
      expect(echo.method).toBe(method);
      expect(echo.headers['x-trawler-test']).toBe('yes');
      expect(echo.body).toBe('');
    }
    const head = await get('/echo', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });

  it('sends Chrome headers when impersonating, plain ones otherwise', async () => {
    const echo = JSON.parse((await get('/echo')).text ?? '{}') as { headers: Record<string, string> };
    if (impersonate) {
      expect(echo.headers['user-agent']).toMatch(/Chrome\/\d+/);
      expect(echo.headers['sec-ch-ua']).toBeTruthy();
    } else {
      expect(echo.headers['user-agent']).toMatch(/Trawler/);
    }
    expect(echo.headers['accept-encoding']).toMatch(/zstd/);
  });

  it('refuses a body over the size ceiling', async () => {
    const error = await rejection(get('/big'));
    expect(error.code).toBe('ERR::UPSTREAM::ERROR');
    expect(error.detail).toMatch(/10 MiB/);
    expect(error.targetStatus).toBe(200);
  });

  it('reads a body of a declared length whole, and refuses one declared over the ceiling', async () => {
    const page = await get('/sized');
    expect(page.text).toBe(SIMPLE_HTML);
    const error = await rejection(get('/big-sized'));
    expect(error.code).toBe('ERR::UPSTREAM::ERROR');
    expect(error.detail).toMatch(/10 MiB/);
    expect(error.targetStatus).toBe(200);
  });

  it('refuses a compressed body that inflates over the ceiling', async () => {
    const error = await rejection(get('/big-gzip'));
    expect(error.code).toBe('ERR::UPSTREAM::ERROR');
    expect(error.detail).toMatch(/size ceiling/);
  });
});
