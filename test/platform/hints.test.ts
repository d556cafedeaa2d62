import { describe, expect, it } from 'vitest';
import { problemOf as problemAnswer } from '../support/answers.js';
import { authed, jsonPost } from '../support/embedded.js';
import { embeddedForSuite } from '../support/suite-service.js';

/** Errors that say how to get it right (issue 32): names from other APIs, the key in the query, batch bounds, doc links. */
const service = embeddedForSuite({ engines: [] }); // no DOCS_URL: problems link to this deployment's own reference

const problemOf = async (response: Response) => (await problemAnswer(response)) as { code: string; detail: string; doc_url: string; type: string };

describe('hints in problems', () => {
  it('names the parameter a caller brought from another API', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ render_js: true }, 'render_js: unknown parameter (did you mean js_render?)'],
      [{ formats: ['markdown'] }, 'formats: unknown parameter (did you mean response_format?)'],
      [{ js_rendr: true }, 'js_rendr: unknown parameter (did you mean js_render?)'],
      [{ api_key: 'x' }, 'api_key: unknown parameter (the API key is not a parameter: send it as Authorization: Bearer <API_KEY>)'],
    ];
    for (const [extra, detail] of cases) {
      const problem = await problemOf(await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: 'https://example.com/', ...extra })));
      expect(problem.code).toBe('ERR::REQUEST::INVALID_PARAMETER');
      expect(problem.detail).toBe(detail);
    }
    const query = await problemOf(await fetch(`${service.url}/v1/scrape?url=https://example.com/&render_js=true`, authed(service.secret)));
    expect(query.detail).toBe('render_js: unknown parameter (did you mean js_render?)');
  });

  it('says where the key goes when it came as ?api_key=', async () => {
    const response = await fetch(`${service.url}/v1/scrape?url=https://example.com/&api_key=${service.secret}`);
    expect(response.status).toBe(401);
    const problem = await problemOf(response);
    expect(problem.code).toBe('ERR::AUTH::MISSING_KEY');
    expect(problem.detail).toContain('"api_key" in the query string is not read on this route');
    expect(problem.detail).toContain('Authorization: Bearer <API_KEY>');
  });

  it('points a too large batch to appends and to the CLI that splits input', async () => {
    const many = Array.from({ length: 10_001 }, (_, i) => `https://example.com/${i}`);
    const tooMany = await problemOf(await fetch(`${service.url}/v1/batch`, jsonPost(service.secret, { urls: many })));
    expect(tooMany.detail).toContain('urls: at most 10000 per call; split it: create the job with "open": true');
    expect(tooMany.detail).toContain('`trawler batch run FILE` does this for you');
    const huge = await fetch(`${service.url}/v1/batch`, jsonPost(service.secret, { urls: ['https://example.com/'], name: 'x'.repeat(20 * 1024 * 1024) }));
    expect(huge.status).toBe(413);
    expect((await problemOf(huge)).detail).toContain('POST /v1/batch/{id}/items');
  });

  it('links doc_url to the errors page this deployment serves when DOCS_URL is unset', async () => {
    const problem = await problemOf(await fetch(`${service.url}/v1/usage`));
    expect(problem.doc_url).toBe(`${service.url}/v1/reference/errors#AUTH_MISSING_KEY`);
    expect(problem.type).toBe(problem.doc_url);
    const page = await fetch(problem.doc_url.split('#')[0]);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<tr id="AUTH_MISSING_KEY">');
  });

  it('never reports X-RateLimit-Remaining above X-RateLimit-Limit', async () => {
    const response = await fetch(`${service.url}/v1/usage`, authed(service.secret));
    expect(Number(response.headers.get('x-ratelimit-remaining'))).toBeLessThanOrEqual(Number(response.headers.get('x-ratelimit-limit')));
  });
});
