import { describe, expect, it } from 'vitest';
import { SCRAPE_JOB_TYPE, ScrapeJobSchema, SessionStateSchema } from '../../../../lib/protocol/index.js';
import { parseScrapeBody } from '../../../../lib/scrape/params.js';

const options = { projectDefaults: {}, egressPolicy: { allowLoopback: false } };

function jobWith(params: unknown, session: unknown = null) {
  return { type: SCRAPE_JOB_TYPE, request_id: 'r', project_id: 'p', engine: 'chromium', params, deadline_at: 1, budget_ms: 1, dispatched_at: 0, session };
}

/** What a worker decodes from the bytes the gateway publishes. */
function overTheBus(value: unknown) {
  return ScrapeJobSchema.safeParse(JSON.parse(JSON.stringify(value)));
}

describe('the scrape job on the wire', () => {
  it('carries the parameters the gateway normalised unchanged, structured ones included', () => {
    const params = parseScrapeBody(
      {
        url: 'https://example.com/a b?q=ü',
        method: 'post',
        js_render: true,
        wait_for: ' #main ',
        actions: [{ type: 'click', selector: '#more' }, { type: 'wait', ms: 100 }],
        block_resources: ['images', 'CSS'],
        screenshot: true,
        screenshot_format: 'jpg',
        custom_headers: { 'X-Test': 'yes' },
        network_capture: { url_pattern: '/api/' },
        include_tags: ['article'],
        extract: { title: 'h1' },
        allowed_status_codes: [404, 403, 404],
        response_format: 'JSON',
      },
      options,
    );
    const decoded = overTheBus(jobWith(params));
    expect(decoded.success).toBe(true);
    expect(decoded.data?.params).toEqual(params);
    expect(decoded.data?.params.actions?.[0]).toMatchObject({ type: 'click', on_error: 'fail', button: 'left' });
  });

  it('refuses a job whose parameters lack a field (the engines apply no defaults of their own)', () => {
    const { method: _method, ...withoutMethod } = parseScrapeBody({ url: 'https://example.com/' }, options);
    expect(overTheBus(jobWith(withoutMethod)).success).toBe(false);
    expect(overTheBus(jobWith({ ...withoutMethod, method: 'FETCH' })).success).toBe(false);
  });
});

describe('session state on the wire', () => {
  it('fills cookie defaults, folds SameSite, and drops cookies no session can hold', () => {
    const state = SessionStateSchema.parse({
      session_id: 's',
      cookies: [
        { name: 'a', value: '1', domain: 'example.com' },
        { name: 'b', value: '2', domain: '.example.com', sameSite: 'strict', expires: 1900000000, httpOnly: true },
        { name: '', value: 'nameless', domain: 'example.com' },
        { name: 'c', value: '3', domain: 'example.com', sameSite: 'sometimes' },
      ],
      local_storage: {},
      session_storage: {},
    });
    expect(state.cookies).toEqual([
      { name: 'a', value: '1', domain: 'example.com', path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' },
      { name: 'b', value: '2', domain: '.example.com', path: '/', expires: 1900000000, httpOnly: true, secure: false, sameSite: 'Strict' },
    ]);
  });
});
