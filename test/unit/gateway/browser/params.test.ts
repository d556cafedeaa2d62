import { describe, expect, it } from 'vitest';
import { parseBrowserQuery } from '../../../../gateway/browser/params.js';

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
    const none = { headless: true, proxy: null, premium_proxy: false, proxy_country: null, session_id: null };
    expect(parseBrowserQuery({ apikey: 'k' })).toEqual({ engine: 'chromium', ttl: 300, idle_timeout: 60, ...none });
    expect(parseBrowserQuery({ engine: 'obscura', ttl: '3600', idle_timeout: '5' })).toEqual({ engine: 'obscura', ttl: 3600, idle_timeout: 5, ...none });
  });

  it('reads headless, proxy, premium_proxy, proxy_country and session_id as the scrape does', () => {
    expect(parseBrowserQuery({ headless: '0', proxy: 'http://u:p@proxy.example:8080', session_id: 'S1' })).toMatchObject({ headless: false, proxy: 'http://u:p@proxy.example:8080', session_id: 'S1' });
    expect(parseBrowserQuery({ premium_proxy: 'true', proxy_country: 'de' })).toMatchObject({ premium_proxy: true, proxy_country: 'DE' });
    // Beside the caller's own proxy, proxy_country is ignored (as for a scrape); alone it needs premium_proxy.
    expect(parseBrowserQuery({ proxy: 'http://proxy.example:8080', proxy_country: 'DE' }).proxy_country).toBeNull();
    expect(failure({ proxy_country: 'DE' })).toMatch(/INCOMPATIBLE_FLAGS/);
    expect(failure({ proxy: 'http://proxy.example:8080', premium_proxy: '1' })).toMatch(/INCOMPATIBLE_FLAGS/);
    expect(failure({ engine: 'obscura', headless: 'false' })).toMatch(/CAPABILITY_UNSUPPORTED/);
    expect(failure({ headless: 'maybe' })).toMatch(/"headless"/);
    expect(failure({ proxy_country: 'XX', premium_proxy: 'true' })).toMatch(/"proxy_country"/);
  });

  it('refuses unknown parameters, bad engines and values past the ceilings, naming them', () => {
    expect(failure({ stealth: 'true' })).toMatch(/INVALID_PARAMETER.*"stealth"/);
    expect(failure({ engine: 'fetch' })).toMatch(/INVALID_PARAMETER.*"engine"/);
    expect(failure({ ttl: '3601' })).toMatch(/"ttl"/);
    expect(failure({ ttl: '0' })).toMatch(/"ttl"/);
    expect(failure({ idle_timeout: '1.5' })).toMatch(/"idle_timeout"/);
  });
});
