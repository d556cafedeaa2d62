import { describe, expect, it } from 'vitest';
import { REDACTED, isCredentialHeader, redactParams, redactProxy } from '../../../../lib/scrape/redact.js';

describe('redacting stored scrape parameters', () => {
  it('hides the proxy password only', () => {
    expect(redactProxy('http://user:pass@proxy.test:3128')).toBe(`http://user:${REDACTED}@proxy.test:3128`);
    expect(redactProxy('socks5://u%40x:p%3Aw@10.0.0.1:1080/')).toBe(`socks5://u%40x:${REDACTED}@10.0.0.1:1080/`);
    expect(redactProxy('http://proxy.test:3128')).toBe('http://proxy.test:3128');
    expect(redactProxy('not a url with a password')).toBe(REDACTED);
  });

  it('names the credential-bearing headers', () => {
    for (const name of ['Authorization', 'proxy-authorization', 'Cookie', 'X-Api-Key', 'X-Auth-Token', 'x-session-id', 'X-CSRF-Token', 'apikey']) {
      expect(isCredentialHeader(name), name).toBe(true);
    }
    for (const name of ['Accept-Language', 'User-Agent', 'Referer', 'X-Requested-With']) expect(isCredentialHeader(name), name).toBe(false);
  });

  it('leaves every other parameter as it was', () => {
    const params = { url: 'https://x.test/', proxy: 'http://a:b@p.test:1', custom_headers: { Authorization: 'Bearer t', Accept: 'text/html' }, wait: 5 };
    expect(redactParams(params)).toEqual({ url: 'https://x.test/', proxy: `http://a:${REDACTED}@p.test:1`, custom_headers: { Authorization: REDACTED, Accept: 'text/html' }, wait: 5 });
    expect(params.custom_headers.Authorization).toBe('Bearer t');
  });
});
