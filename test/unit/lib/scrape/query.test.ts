import { describe, expect, it } from 'vitest';
import { parseScrapeQuery } from '../../../../lib/scrape/params.js';
import { URL, body, expectServiceError, options, query } from './parse-params.js';

describe('GET query: encoding table', () => {
  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['false', false],
    ['False', false],
    ['0', false],
  ])('boolean %s -> %s', (raw, expected) => {
    expect(query({ js_render: raw }).js_render).toBe(expected);
  });

  it('integers are plain values', () => {
    expect(query({ js_render: 'true', wait: '1500', max_cost: '3' })).toMatchObject({ wait: 1500, max_cost: 3 });
  });

  it('lists are comma-separated', () => {
    const params = query({
      js_render: 'true',
      block_resources: 'image, fonts,CSS',
      include_tags: 'main,article',
      exclude_tags: 'nav, footer',
      allowed_status_codes: '403,500',
    });
    expect(params).toMatchObject({
      block_resources: ['image', 'font', 'stylesheet'],
      include_tags: ['main', 'article'],
      exclude_tags: ['nav', 'footer'],
      allowed_status_codes: [403, 500],
    });
  });

  it('a list starting with [ is a JSON array (selectors with commas)', () => {
    expect(query({ exclude_tags: '["nav, footer", "aside"]' }).exclude_tags).toEqual(['nav, footer', 'aside']);
  });

  it('objects and arrays are URL-decoded JSON', () => {
    const params = query({
      custom_headers: '{"Accept-Language":"de"}',
      extract: '{"title":"h1"}',
      js_render: '1',
      actions: '[{"type":"wait","ms":100}]',
    });
    expect(params.custom_headers).toEqual({ 'Accept-Language': 'de' });
    expect(params.extract).toEqual({ title: 'h1' });
    expect(params.actions).toEqual([expect.objectContaining({ type: 'wait', ms: 100 })]);
  });

  it('gives the same parameters as the equivalent POST body', () => {
    const viaQuery = query({ method: 'head', engine: 'CHROMIUM', screenshot: 'true', screenshot_format: 'jpg' });
    const viaBody = body({ method: 'head', engine: 'CHROMIUM', screenshot: true, screenshot_format: 'jpg' });
    expect(viaQuery).toEqual(viaBody);
  });

  it('ignores query-string API keys', () => {
    expect(query({ apikey: 'svc_live_x', api_key: 'svc_live_y' }).url).toBe(URL);
  });
});

describe('GET query: errors', () => {
  it.each([
    [{ js_render: 'yes' }, 'ERR::REQUEST::INVALID_PARAMETER', 'js_render: must be true, false, 1 or 0'],
    [{ wait: '1.5' }, 'ERR::REQUEST::INVALID_PARAMETER', 'wait: must be an integer'],
    [{ wait: 'soon' }, 'ERR::REQUEST::INVALID_PARAMETER', 'wait: must be an integer'],
    [{ allowed_status_codes: '403,abc' }, 'ERR::REQUEST::INVALID_PARAMETER', 'allowed_status_codes[1]: must be an integer'],
    [{ custom_headers: '{not json' }, 'ERR::REQUEST::INVALID_PARAMETER', 'custom_headers: must be URL-encoded JSON'],
    [{ custom_headers: '["a"]' }, 'ERR::REQUEST::INVALID_PARAMETER', 'custom_headers:'],
    [{ custom_headers: '{"Connection":"close"}' }, 'ERR::REQUEST::INVALID_PARAMETER', 'custom_headers.Connection: hop-by-hop'],
    [{ block_resources: 'image,' }, 'ERR::REQUEST::INVALID_PARAMETER', 'block_resources[1]'],
    [{ js_render: ['true', 'false'] }, 'ERR::REQUEST::INVALID_PARAMETER', 'js_render: given more than once'],
    [{ jsrender: 'true' }, 'ERR::REQUEST::INVALID_PARAMETER', 'jsrender: unknown parameter'],
    [{ url: `https://example.com/${'a'.repeat(8200)}` }, 'ERR::REQUEST::INVALID_PARAMETER', 'url: must be at most 8192'],
    [{ screenshot_fullpage: 'true' }, 'ERR::REQUEST::INCOMPATIBLE_FLAGS', 'screenshot_fullpage requires screenshot'],
    [{ url: 'http://192.168.1.1/' }, 'ERR::SECURITY::SSRF_BLOCKED', '192.168.1.1'],
  ])('%j -> %s', (fields, code, detail) => {
    expectServiceError(() => query(fields), code, detail);
  });

  it('missing url is MISSING_PARAMETER', () => {
    expectServiceError(() => parseScrapeQuery({ js_render: 'true' }, options()), 'ERR::REQUEST::MISSING_PARAMETER', 'url');
  });

  it('accepts a url of exactly 8192 characters', () => {
    const url = `https://example.com/${'a'.repeat(8192 - 'https://example.com/'.length)}`;
    expect(url).toHaveLength(8192);
    expect(parseScrapeQuery({ url }, options()).url).toBe(url);
  });
});
