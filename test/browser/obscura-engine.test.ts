import { describe, expect, it } from 'vitest';
import { CHALLENGE_PAGES } from '../support/js-pages.js';
import { context, failureOf, job, useBrowserEngine } from './browser-engine.js';

const fixture = useBrowserEngine('obscura');
const { render } = fixture;

describe('obscura engine', { timeout: 30_000 }, () => {
  it('returns the DOM after client-side rendering', async () => {
    const page = await render({ url: `${fixture.site.origin}/client-rendered` });
    expect(page.status).toBe(200);
    expect(page.mediaType).toBe('text/html');
    expect(page.text).toContain('<h1 id="title">Rendered by JS</h1>');
    expect(page.text).toMatch(/^<!DOCTYPE html><html>/i);
    expect(page.blocked).toBeNull();
    expect(page.warnings).toEqual([]);
    // The same outcome words as the fetch tier's (docs/fetch-engine.md): ok, error, challenge.
    expect(page.attempts.map((attempt) => attempt.outcome)).toEqual(['ok']);
  });

  it('waits for a selector that appears late', async () => {
    const page = await render({ url: `${fixture.site.origin}/delayed`, wait_for: '#late' });
    expect(page.text).toContain('Late content');
    expect(page.warnings).toEqual([]);
  });

  it('waits for a selector in Playwright syntax that appears late', async () => {
    const page = await render({ url: `${fixture.site.origin}/delayed`, wait_for: 'text=Late content' });
    expect(page.text).toContain('Late content');
    expect(page.warnings).toEqual([]);
  });

  it('returns the page as it stood with RENDER_DEGRADED when wait_for never appears', async () => {
    const page = await render({ url: `${fixture.site.origin}/static`, wait_for: '#never', wait_for_timeout: 300 });
    expect(page.text).toContain('Static page');
    expect(page.warnings).toContain('RENDER_DEGRADED');
  });

  it('fails with 504 UPSTREAM::TIMEOUT when the budget runs out while waiting', async () => {
    const failure = await failureOf(render({ url: `${fixture.site.origin}/static`, wait_for: '#never', wait_for_timeout: 60_000 }, 2_500));
    expect(failure.code).toBe('ERR::UPSTREAM::TIMEOUT');
  });

  it('blocks images by default and loads them with block_resources none', async () => {
    const before = fixture.site.hits('/img.png');
    await render({ url: `${fixture.site.origin}/images` });
    expect(fixture.site.hits('/img.png')).toBe(before);
    await render({ url: `${fixture.site.origin}/images`, block_resources: [] });
    expect(fixture.site.hits('/img.png')).toBe(before + 1);
  });

  it('an explicit block list replaces the default', async () => {
    const page = await render({ url: `${fixture.site.origin}/xhr`, block_resources: ['fetch'], wait_for: '#out:not(:empty)' });
    expect(page.text).toContain('pong');
    expect(page.text).not.toContain('hello from fetch');
  });

  it('sends custom headers to the target', async () => {
    const page = await render({ url: `${fixture.site.origin}/echo-headers`, custom_headers: { 'X-Trawler-Test': 'yes' } });
    expect(page.mediaType).toBe('application/json');
    const echoed = JSON.parse(page.text ?? '{}') as { headers: Record<string, string> };
    expect(echoed.headers['x-trawler-test']).toBe('yes');
  });

  it('records fetch and XHR responses under network', async () => {
    const page = await render({ url: `${fixture.site.origin}/xhr`, wait_for: '#out:not(:empty)', network_capture: {} });
    const entries = page.network as Array<{ url: string; method: string; status: number; body: string; resource_type: string }>;
    const data = entries.find((e) => e.url.endsWith('/api/data'));
    const xhr = entries.find((e) => e.url.endsWith('/api/xhr'));
    expect(data).toMatchObject({ method: 'GET', status: 200, resource_type: 'fetch', body: '{"message":"hello from fetch"}' });
    expect(xhr).toMatchObject({ method: 'POST', status: 200, resource_type: 'xhr', body: 'pong' });
    expect(entries.some((e) => e.resource_type === 'document')).toBe(false);
  });

  it('filters network capture by url and method', async () => {
    const page = await render({
      url: `${fixture.site.origin}/xhr`,
      wait_for: '#out:not(:empty)',
      network_capture: { url_pattern: '*/api/*', methods: ['post'], include_bodies: false },
    });
    const entries = page.network as Array<{ url: string; body: string | null }>;
    expect(entries.map((e) => new URL(e.url).pathname)).toEqual(['/api/xhr']);
    expect(entries[0].body).toBeNull();
  });

  it('answers with a pathological url_pattern against long URLs (the pattern is matched in linear time)', async () => {
    // As a backtracking regular expression this pattern took longer than the age of the universe here.
    const url_pattern = `${'*a'.repeat(30)}*b`;
    const long = `${fixture.site.origin}/static?q=${'a'.repeat(3000)}`;
    const missed = await render({ url: long, network_capture: { url_pattern, resource_types: ['document'] } });
    expect(missed.text).toContain('Static page');
    expect(missed.network).toEqual([]);
    const matched = await render({ url: `${long}b`, network_capture: { url_pattern, resource_types: ['document'] } });
    expect((matched.network as Array<{ url: string }>).map((e) => e.url)).toEqual([`${long}b`]);
  });

  it('keeps at most 8 MiB of bodies per capture and reads no body declaring more, saying so', async () => {
    const page = await render({
      url: `${fixture.site.origin}/many-bodies`,
      wait_for: '#out:not(:empty)',
      network_capture: { url_pattern: '/bytes?', max_body_bytes: 1_048_576 },
    });
    const entries = page.network as Array<{ url: string; body: string | null; body_size: number | null; body_truncated: boolean }>;
    expect(entries).toHaveLength(13);
    const kept = entries.reduce((sum, e) => sum + (e.body?.length ?? 0), 0);
    expect(kept).toBeLessThanOrEqual(8 * 1_048_576);
    expect(kept).toBeGreaterThan(7 * 1_048_576);
    expect(entries.filter((e) => e.body_truncated).length).toBeGreaterThanOrEqual(4);
    const huge = entries.find((e) => e.url.includes('n=9437184'));
    expect(huge).toMatchObject({ body: null, body_size: 9_437_184, body_truncated: true });
    expect(page.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^NETWORK_CAPTURE_TRUNCATED: /)]));
  });

  it('reads no body past 8 MiB that declares no length, saying so, and still reads a small one', async () => {
    const page = await render({
      url: `${fixture.site.origin}/chunked-bodies`,
      wait_for: '#out:not(:empty)',
      network_capture: { url_pattern: '/bytes?', max_body_bytes: 1_048_576 },
    });
    const entries = page.network as Array<{ url: string; body: string | null; body_size: number | null; body_truncated: boolean; headers: Record<string, string> }>;
    expect(entries).toHaveLength(2);
    const huge = entries.find((e) => e.url.includes('n=9437184'));
    expect(huge?.headers['content-length']).toBeUndefined();
    expect(huge).toMatchObject({ body: null, body_truncated: true });
    expect(huge?.body_size).toBeGreaterThanOrEqual(9_437_184);
    expect(entries.find((e) => e.url.includes('n=1000'))).toMatchObject({ body: 'a'.repeat(1000), body_size: 1000, body_truncated: false });
    expect(page.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^NETWORK_CAPTURE_TRUNCATED: bodies over 8388608 bytes are not read/)]));
  });

  it('reads no compressed body that decodes past 8 MiB (gzip and br bombs), saying so, and still reads a small one', async () => {
    const page = await render({
      url: `${fixture.site.origin}/compressed-bodies`,
      wait_for: '#out:not(:empty)',
      network_capture: { url_pattern: '/compressed?', max_body_bytes: 1_048_576 },
    });
    const entries = page.network as Array<{ url: string; body: string | null; body_size: number | null; body_truncated: boolean; headers: Record<string, string> }>;
    expect(entries).toHaveLength(3);
    for (const coding of ['gzip', 'br']) {
      const bomb = entries.find((e) => e.url.includes(`coding=${coding}&n=16777216`));
      expect(Number(bomb?.headers['content-length'])).toBeLessThan(65_536);
      expect(bomb).toMatchObject({ body: null, body_size: 16_777_216, body_truncated: true });
    }
    expect(entries.find((e) => e.url.includes('n=1000'))).toMatchObject({ body: 'x'.repeat(1000), body_size: 1000, body_truncated: false });
    expect(page.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^NETWORK_CAPTURE_TRUNCATED: bodies over 8388608 bytes are not read/)]));
  });

  it('keeps the page inside the egress policy: no private address, file:, popup or download escapes', async () => {
    const page = await render({ url: `${fixture.site.origin}/ssrf`, block_resources: [] });
    expect(page.text).toContain('still here');
    expect(page.text).not.toContain('root:');
    expect(fixture.site.privateConnections()).toBe(0);
  });

  it('cannot navigate the page to file: or chrome: URLs', async () => {
    const page = await render({
      url: `${fixture.site.origin}/static`,
      actions: [
        { type: 'evaluate', script: 'location.href = "file:///etc/passwd"; 1' },
        { type: 'evaluate', script: 'window.open("chrome://version"); location.href = "chrome://settings"; 2' },
        { type: 'wait_for_load' },
        { type: 'evaluate', script: 'location.href' },
      ],
    });
    expect(page.actionResults).toEqual([1, 2, `${fixture.site.origin}/static`]);
    expect(page.text).toContain('Static page');
    expect(page.text).not.toContain('root:');
  });

  it('answers SSRF_BLOCKED when the main document redirects to a private address', async () => {
    const failure = await failureOf(render({ url: `${fixture.site.origin}/redirect-private` }));
    expect(failure.code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    expect(fixture.site.privateConnections()).toBe(0);
  });

  it('answers SSRF_BLOCKED when a script of the page navigates it to a private address', async () => {
    const failure = await failureOf(render({ url: `${fixture.site.origin}/script-navigates-private`, wait: 500 }));
    expect(failure.code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    expect(fixture.site.privateConnections()).toBe(0);
  });

  it('describes the document a script navigated to, not the first one', async () => {
    const page = await render({ url: `${fixture.site.origin}/script-navigates`, wait_for: 'h1' });
    expect(page.finalUrl).toBe(`${fixture.site.origin}/gone`);
    expect(page.status).toBe(410);
    expect(page.text).toContain('Second page');
  });

  it('does not carry cookies or storage from one request to the next', async () => {
    const first = await render({
      url: `${fixture.site.origin}/static`,
      actions: [{ type: 'evaluate', script: 'document.cookie = "seen=1"; localStorage.setItem("k", "v"); document.cookie' }],
    });
    expect(first.actionResults).toEqual(['seen=1']);
    const second = await render({
      url: `${fixture.site.origin}/static`,
      actions: [{ type: 'evaluate', script: '[document.cookie, localStorage.getItem("k")]' }],
    });
    expect(second.actionResults).toEqual([['', null]]);
  });

  it('loads a session\'s cookies and returns the state after the render', async () => {
    const origin = new URL(fixture.site.origin);
    const sessionJob = job(
      'obscura',
      {
        url: `${fixture.site.origin}/static`,
        actions: [{ type: 'evaluate', script: 'const had = document.cookie; document.cookie = "added=2"; had' }],
      },
      undefined,
      {
        session_id: 'session-1',
        cookies: [{ name: 'kept', value: '1', domain: origin.hostname, path: '/' }],
        local_storage: {},
        session_storage: {},
      },
    );
    const page = await fixture.engine.fetch(sessionJob, context());
    expect(page.actionResults).toEqual(['kept=1']);
    const names = (page.session?.cookies ?? []).map((c) => c.name).sort();
    expect(names).toEqual(['added', 'kept']);
  });

  it.each(Object.keys(CHALLENGE_PAGES))('recognises the %s challenge page', async (vendor) => {
    const page = await render({ url: `${fixture.site.origin}/challenge/${vendor}` });
    expect(page.blocked?.vendor).toBe(vendor);
  });
});
