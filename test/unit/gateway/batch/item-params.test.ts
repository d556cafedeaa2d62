import { describe, expect, it } from 'vitest';
import { itemParams, parseJobParams } from '../../../../gateway/batch/item-params.js';
import { ServiceError } from '../../../../lib/errors/index.js';
import { parseScrapeBody, type ParseOptions } from '../../../../lib/scrape/params.js';

const options: ParseOptions = { projectDefaults: { js_render: false }, egressPolicy: { allowLoopback: false } };
const jobParams = { response_format: 'markdown', wait: 250, custom_headers: { 'x-a': 'b' } };

function outcome(run: () => unknown): unknown {
  try {
    return run();
  } catch (error) {
    return error instanceof ServiceError ? { code: error.code, detail: error.detail } : error;
  }
}

// A bare item (no overrides) shares one parse of the job parameters and checks only its url: what it
// gets, parameters or error, must be what a full parse of job parameters plus url gives.
describe('batch item parameters', () => {
  const urls = [
    'https://a.example/page?x=1',
    'HTTPS://A.Example:443/p#f',
    'http://10.0.0.1/',
    'http://localhost/',
    'not a url',
    `https://a.example/${'x'.repeat(9000)}`,
    'https://a.example/\u0000',
  ];
  it.each(urls)('a bare item with %j matches the full parse', (url) => {
    const shared = parseJobParams(jobParams, options);
    const bare = outcome(() => itemParams({ jobParams, overrides: {}, url }, options, () => shared));
    const full = outcome(() => parseScrapeBody({ ...jobParams, url }, options));
    expect(bare).toEqual(full);
  });

  it('parses an item with overrides whole', () => {
    const shared = () => {
      throw new Error('not used for an item with overrides');
    };
    const params = itemParams({ jobParams, overrides: { wait: 500 }, url: 'https://a.example/' }, options, shared);
    expect(params).toEqual(parseScrapeBody({ ...jobParams, wait: 500, url: 'https://a.example/' }, options));
  });
});
