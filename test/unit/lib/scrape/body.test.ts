import { describe, expect, it } from 'vitest';
import { parseScrapeBody } from '../../../../lib/scrape/params.js';
import { URL, body, expectServiceError, options } from './parse-params.js';

describe('POST body: defaults', () => {
  it('fills every documented default when only url is sent', () => {
    const params = body({});
    expect(params).toMatchObject({
      url: URL,
      method: 'GET',
      js_render: false,
      stealth: false,
      impersonate: true,
      mode: null,
      engine: null,
      premium_proxy: false,
      wait: 0,
      wait_for_timeout: 0,
      block_resources: null,
      headless: null,
      screenshot: false,
      screenshot_format: 'png',
      screenshot_quality: 0,
      custom_headers: {},
      response_format: 'html',
      max_cost: null,
      cache: true,
      cache_ttl: null,
      original_status: false,
      allowed_status_codes: [],
      include_tags: [],
      exclude_tags: [],
      main_content_only: null,
    });
  });

  it('treats null as omitted', () => {
    expect(body({ wait_for: null, engine: null, cache: null }).cache).toBe(true);
  });
});

describe('POST body: normalisation', () => {
  it.each([
    [{ method: 'post' }, 'method', 'POST'],
    [{ engine: 'Chromium' }, 'engine', 'chromium'],
    [{ mode: 'AUTO' }, 'mode', 'auto'],
    [{ response_format: 'Markdown' }, 'response_format', 'markdown'],
    [{ proxy_country: 'de', premium_proxy: true }, 'proxy_country', 'DE'],
    [{ screenshot: true, screenshot_format: 'JPG' }, 'screenshot_format', 'jpeg'],
    [{ screenshot: true, screenshot_format: 'gif' }, 'screenshot_format', 'png'],
    [{ js_render: true, block_resources: ['CSS', 'stylesheets', 'Images', 'js'] }, 'block_resources', ['stylesheet', 'image', 'script']],
    [{ js_render: true, block_resources: ['none'] }, 'block_resources', []],
    [{ allowed_status_codes: [500, 403, 500] }, 'allowed_status_codes', [403, 500]],
  ])('%j gives %s = %j', (fields, name, expected) => {
    expect(body(fields)[name as keyof ReturnType<typeof body>]).toEqual(expected);
  });

  it('normalises the url through the WHATWG parser', () => {
    expect(body({ url: 'HTTPS://Example.COM' }).url).toBe('https://example.com/');
  });
});

describe('POST body: request-level errors', () => {
  it.each([[null], [[]], ['url'], [42]])('body %j is ERR::REQUEST::INVALID', (raw) => {
    expectServiceError(() => parseScrapeBody(raw, options()), 'ERR::REQUEST::INVALID', 'JSON object');
  });

  it('missing url is MISSING_PARAMETER naming url', () => {
    expectServiceError(() => parseScrapeBody({ js_render: true }, options()), 'ERR::REQUEST::MISSING_PARAMETER', 'url');
  });

  it('url at batch top level is INVALID_PARAMETER', () => {
    expectServiceError(() => parseScrapeBody({ url: URL }, options({}, false)), 'ERR::REQUEST::INVALID_PARAMETER', 'url: not allowed');
  });

  it('batch top level without url parses job-wide defaults', () => {
    expect(parseScrapeBody({ js_render: true }, options({}, false))).toMatchObject({ url: '', js_render: true });
  });
});

describe('POST body: INVALID_PARAMETER names the field', () => {
  it.each([
    [{ urll: URL }, 'urll: unknown parameter'],
    [{ js_render: 'true' }, 'js_render:'],
    [{ method: 'FETCH' }, 'method:'],
    [{ engine: 'webkit' }, 'engine:'],
    [{ mode: 'manual' }, 'mode:'],
    [{ response_format: 'xml' }, 'response_format:'],
    [{ wait: -1 }, 'wait:'],
    [{ wait: 1.5 }, 'wait:'],
    [{ screenshot_quality: 101 }, 'screenshot_quality:'],
    [{ screenshot_format: 5 }, 'screenshot_format:'],
    [{ proxy_country: 'Germany' }, 'proxy_country:'],
    [{ proxy_country: 'QQ' }, 'proxy_country:'],
    [{ block_resources: ['pictures'] }, 'block_resources[0]:'],
    [{ block_resources: ['none', 'image'] }, 'block_resources:'],
    [{ custom_headers: { Host: 'evil' } }, 'custom_headers.Host: hop-by-hop header not allowed'],
    [{ custom_headers: { 'transfer-encoding': 'chunked' } }, 'custom_headers.transfer-encoding: hop-by-hop'],
    [{ custom_headers: { 'Bad Name': 'x' } }, 'custom_headers.Bad Name:'],
    [{ custom_headers: { 'X-A': 'a\r\nB: c' } }, 'custom_headers.X-A:'],
    [{ custom_headers: { 'X-A': 1 } }, 'custom_headers.X-A:'],
    [{ include_tags: ['main', ''] }, 'include_tags[1]:'],
    [{ exclude_tags: 'nav' }, 'exclude_tags:'],
    [{ allowed_status_codes: [99] }, 'allowed_status_codes[0]:'],
    [{ allowed_status_codes: [600] }, 'allowed_status_codes[0]:'],
    [{ max_cost: 0 }, 'max_cost:'],
    [{ max_cost: 2.5 }, 'max_cost:'],
    [{ cache_ttl: -1 }, 'cache_ttl:'],
    [{ cache_ttl: 604_801 }, 'cache_ttl:'],
    [{ original_status: 'yes' }, 'original_status:'],
    [{ url: `https://example.com/${'a'.repeat(8192)}` }, 'url:'],
    [{ actions: [{ type: 'teleport' }] }, 'actions[0]'],
    [{ network_capture: { bogus: true } }, 'network_capture.bogus: unknown parameter'],
    [{ proxy: 'ftp://proxy.example.com:21' }, 'proxy scheme ftp'],
  ])('%j -> detail contains %j', (fields, detail) => {
    expectServiceError(() => body(fields), 'ERR::REQUEST::INVALID_PARAMETER', detail);
  });
});

describe('POST body: security and extraction checks', () => {
  it.each([
    [{ url: 'http://127.0.0.1/' }, 'ERR::SECURITY::SSRF_BLOCKED', '127.0.0.1'],
    [{ url: 'http://10.0.0.1/' }, 'ERR::SECURITY::SSRF_BLOCKED', '10.0.0.1'],
    [{ url: 'ftp://example.com/' }, 'ERR::SECURITY::INVALID_URL', 'ftp'],
    [{ url: 'not a url' }, 'ERR::SECURITY::INVALID_URL', 'url'],
    [{ proxy: 'http://127.0.0.1:8080' }, 'ERR::SECURITY::SSRF_BLOCKED', 'Proxy'],
    [{ extract: {} }, 'ERR::EXTRACT::INVALID_RULES', ''],
  ])('%j -> %s', (fields, code, detail) => {
    expectServiceError(() => body(fields), code, detail);
  });

  it('accepts valid extract rules, actions and network_capture', () => {
    const params = body({
      js_render: true,
      extract: { title: 'h1' },
      actions: [{ type: 'click', selector: '#more' }],
      network_capture: {},
    });
    expect(params.extract).toEqual({ title: 'h1' });
    expect(params.actions).toEqual([expect.objectContaining({ type: 'click', selector: '#more', on_error: 'fail' })]);
    expect(params.network_capture).toMatchObject({ resource_types: ['xhr', 'fetch'] });
  });
});

describe('POST body: INCOMPATIBLE_FLAGS', () => {
  it.each([
    [{ mode: 'auto', js_render: true }, 'mode=auto cannot be combined with js_render'],
    [{ mode: 'auto', stealth: true }, 'mode=auto cannot be combined with stealth'],
    [{ mode: 'auto', engine: 'obscura' }, 'mode=auto cannot be combined with engine'],
    [{ mode: 'auto', session_id: 's1' }, 'session_id'],
    [{ stealth: true, engine: 'chromium' }, 'engine=chromium'],
    [{ js_render: true, engine: 'fetch' }, 'engine=fetch'],
    [{ proxy_verify: true }, 'proxy_verify requires proxy'],
    [{ proxy_country: 'US' }, 'proxy_country requires premium_proxy'],
    [{ sticky_key: 'k', proxy: 'http://proxy.example.com:8080' }, 'sticky_key'],
    [{ wait_for_timeout: 500 }, 'wait_for_timeout requires wait_for'],
    [{ screenshot_fullpage: true }, 'screenshot_fullpage requires screenshot'],
    [{ screenshot_selector: '#a' }, 'screenshot_selector requires screenshot'],
    [{ screenshot_quality: 80 }, 'screenshot_quality above 0 requires screenshot'],
    [{ screenshot: true, screenshot_fullpage: true, screenshot_selector: '#a' }, 'exclusive'],
    [{ cache: false, cache_ttl: 60 }, 'cache=false'],
    [{ extract: { a: 'h1' }, extract_preset: 'product' }, 'extract and extract_preset'],
    [{ response_format: 'pdf', links: true }, 'response_format=pdf cannot be combined with links'],
    [{ response_format: 'pdf', autoparse: true }, 'autoparse'],
    [{ response_format: 'pdf', screenshot: true }, 'screenshot'],
  ])('%j -> detail contains %j', (fields, detail) => {
    expectServiceError(() => body(fields), 'ERR::REQUEST::INCOMPATIBLE_FLAGS', detail);
  });

  it.each([
    [{ proxy_country: 'US', proxy: 'http://proxy.example.com:8080' }],
    [{ proxy_verify: true, proxy: 'socks5h://proxy.example.com:1080' }],
    [{ wait_for: '#x', wait_for_timeout: 0 }],
    [{ cache: false, cache_ttl: 0 }],
    [{ mode: 'auto', js_render: false }],
    [{ stealth: true, engine: 'camoufox' }],
    [{ extract_preset: 'product' }],
  ])('%j is accepted', (fields) => {
    expect(() => body(fields)).not.toThrow();
  });
});

describe('include_tags and exclude_tags selectors', () => {
  it('refuses an unparseable or hostile selector before anything is fetched, naming the field', () => {
    for (const [field, value] of [
      ['include_tags', ['div[']],
      ['exclude_tags', [':has(:has(:has(a)))']],
    ] as const) {
      expect(() => parseScrapeBody({ url: 'https://example.com/', [field]: value }, { projectDefaults: {}, egressPolicy: { allowLoopback: false } })).toThrow(
        expect.objectContaining({ code: 'ERR::REQUEST::INVALID_PARAMETER', detail: expect.stringContaining(field) }),
      );
    }
  });
});
