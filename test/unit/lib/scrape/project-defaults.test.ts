import { describe, expect, it } from 'vitest';
import { body } from './parse-params.js';

describe('project defaults', () => {
  it.each([
    [{ js_render: true }, {}, 'js_render', true],
    [{ js_render: true }, { js_render: false }, 'js_render', false],
    [{ impersonate: false }, {}, 'impersonate', false],
    [{ impersonate: false }, { impersonate: true }, 'impersonate', true],
    [{ links: true }, {}, 'links', true],
    [{ links: true }, { links: false }, 'links', false],
    [{ main_content_only: true }, { main_content_only: false }, 'main_content_only', false],
    [{ main_content_only: false }, {}, 'main_content_only', false],
    [{ custom_headers: { 'X-Team': 'a' } }, {}, 'custom_headers', { 'X-Team': 'a' }],
    [{ custom_headers: { 'X-Team': 'a' } }, { custom_headers: { 'X-Other': 'b' } }, 'custom_headers', { 'X-Other': 'b' }],
    [{ mode: 'auto' }, {}, 'mode', 'auto'],
    [{ engine: 'chromium' }, {}, 'engine', 'chromium'],
    [{ premium_proxy: true, proxy_country: 'FR' }, {}, 'proxy_country', 'FR'],
    [{ premium_proxy: true }, { premium_proxy: false }, 'premium_proxy', false],
  ] as const)('default %j, request %j -> %s = %j', (defaults, fields, name, expected) => {
    expect(body(fields, defaults)[name]).toEqual(expected);
  });

  it('a request choosing its engine takes none of the project engine defaults', () => {
    const params = body({ js_render: true }, { mode: 'auto' });
    expect(params).toMatchObject({ js_render: true, mode: null });
    expect(body({ engine: 'chromium' }, { stealth: true })).toMatchObject({ engine: 'chromium', stealth: false });
  });

  it('an own proxy turns off the pool defaults', () => {
    const params = body({ proxy: 'http://proxy.example.com:3128' }, { premium_proxy: true, proxy_country: 'DE' });
    expect(params).toMatchObject({ premium_proxy: false, proxy_country: null });
  });

  it('a default country without premium_proxy is not applied', () => {
    expect(body({}, { proxy_country: 'DE' }).proxy_country).toBeNull();
  });

  it('block_resources default applies to browser renders only', () => {
    expect(body({}, { block_resources: ['image'] }).block_resources).toBeNull();
    expect(body({ js_render: true }, { block_resources: ['image'] }).block_resources).toEqual(['image']);
  });

  it('links default is not applied to a PDF', () => {
    expect(body({ engine: 'chromium', response_format: 'pdf' }, { links: true }).links).toBe(false);
  });
});
