import { describe, expect, it } from 'vitest';
import { parseBrowserQuery } from '../../gateway/browser/params.js';

function failure(query: Record<string, unknown>): string {
  try {
    parseBrowserQuery(query);
  } catch (error) {
    return `${(error as { code: string }).code} ${(error as Error).message}`;
  }
  throw new Error('expected a refusal');
}

describe('GET /v1/browser query', () => {
  it('defaults: chromium, 300 s TTL, 60 s idle; the query key is not unknown', () => {
    expect(parseBrowserQuery({ apikey: 'k' })).toEqual({ engine: 'chromium', ttl: 300, idle_timeout: 60 });
    expect(parseBrowserQuery({ engine: 'obscura', ttl: '3600', idle_timeout: '5' })).toEqual({ engine: 'obscura', ttl: 3600, idle_timeout: 5 });
  });

  it('refuses unknown parameters, bad engines and values past the ceilings, naming them', () => {
    expect(failure({ stealth: 'true' })).toMatch(/INVALID_PARAMETER.*"stealth"/);
    expect(failure({ engine: 'fetch' })).toMatch(/INVALID_PARAMETER.*"engine"/);
    expect(failure({ ttl: '3601' })).toMatch(/"ttl"/);
    expect(failure({ ttl: '0' })).toMatch(/"ttl"/);
    expect(failure({ idle_timeout: '1.5' })).toMatch(/"idle_timeout"/);
  });
});
