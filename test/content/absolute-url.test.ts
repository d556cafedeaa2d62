import { describe, expect, it } from 'vitest';
import { absoluteUrl } from '../../worker/content/document.js';

/** What absoluteUrl answered before it parsed http(s) URLs without their base: the URL parser with the base. */
function withBase(value: string, base: string): string | null {
  const trimmed = value.trim();
  if (trimmed === '') return null;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return null;
  }
}

const BASES = ['http://127.0.0.1:8080/a/b/page.html?q=1#top', 'https://example.org/', 'https://user:pw@xn--bcher-kva.example:8443/dir/'];

/** Written as pages write URLs, and as they should not: scheme case, missing or doubled slashes, backslashes, odd hosts. */
const VALUES = [
  'https://example.org/x', 'HTTPS://Example.ORG/A/../b', 'http://example.org:80/', 'https://example.org:443/p', 'http://[::1]:8080/v6',
  'http://0x7f.1/', 'http://1.2.3/', 'http://bücher.example/ä?ö=ü#ß', 'http://ex ample.org/', 'http://', 'https://', 'http:///x',
  'http:foo/bar', 'https:foo', 'http:/x', 'http:\\\\host\\path', 'http:\\/host', 'hTtP://HOST/%7e/%2F', 'http://host/a b?c d#e f',
  'http://host./x', 'http://user@host/', 'http://@host/', 'http://host:99999/', 'http://host:/x', '  https://pad.example/  ',
  'ht\ntp://split.example/', 'https://tab.exa\tmple/', '//protocol.relative/x', '/root', 'rel/path', '../up', '?q', '#frag',
  'mailto:a@b', 'data:text/plain,x', 'ftp://files.example/', 'file:///etc/passwd', 'javascript:void(0)', '', '   ',
];

describe('absoluteUrl', () => {
  it('answers what the URL parser answers with the base, for every way a URL is written', () => {
    for (const base of BASES) {
      for (const value of VALUES) expect([base, value, absoluteUrl(value, base)]).toEqual([base, value, withBase(value, base)]);
    }
  });

  it('answers the same on generated http(s) URLs', () => {
    const pieces = ['http', 'HTTPS', 's', ':', '/', '//', '\\', 'h.example', '[::1]', ':81', '@', '..', '.', '%41', ' ', '\t', '?', '#', 'ü', 'x'];
    let seed = 7;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let n = 0; n < 20_000; n += 1) {
      let value = ['http://', 'https://', 'HTTP://', 'http:', 'https:/'][next() % 5]!;
      for (let k = next() % 8; k > 0; k -= 1) value += pieces[next() % pieces.length];
      const base = BASES[next() % BASES.length]!;
      expect([base, value, absoluteUrl(value, base)]).toEqual([base, value, withBase(value, base)]);
    }
  });
});
