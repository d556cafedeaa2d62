import { describe, expect, it } from 'vitest';
import { normalizeUrl } from '../../../../lib/crawl/normalize.js';
import { matchesPathPattern } from '../../../../lib/crawl/path-patterns.js';

describe('normalizeUrl', () => {
  it('gives one spelling to one page', () => {
    const spellings = [
      'HTTP://Example.COM:80/docs/', 'http://example.com/docs', 'http://example.com/docs/index.html', 'http://example.com/docs#top',
      'http://user:pw@example.com/docs', 'http://example.com/a/../docs',
    ];
    expect(new Set(spellings.map((url) => normalizeUrl(url)))).toEqual(new Set(['http://example.com/docs']));
    expect(normalizeUrl('https://example.com:443/')).toBe('https://example.com/');
  });

  it('sorts query parameters, or drops them when asked; keeps hash routes and path case', () => {
    expect(normalizeUrl('http://e.com/p?b=2&a=1&a=0')).toBe('http://e.com/p?a=1&a=0&b=2');
    expect(normalizeUrl('http://e.com/p?b=2', undefined, true)).toBe('http://e.com/p');
    expect(normalizeUrl('http://e.com/#/settings')).toBe('http://e.com/#/settings');
    expect(normalizeUrl('http://e.com/Docs')).toBe('http://e.com/Docs');
    expect(normalizeUrl('mailto:a@b.c')).toBeNull();
    expect(normalizeUrl('../x', 'http://e.com/a/b/')).toBe('http://e.com/a/x');
  });
});

describe('path patterns', () => {
  it('match prefixes with * wildcards', () => {
    expect(matchesPathPattern('/blog/2024/x', '/blog')).toBe(true);
    expect(matchesPathPattern('/blogroll', '/blog/')).toBe(false);
    expect(matchesPathPattern('/a/drafts/b', '/*/drafts')).toBe(true);
    expect(matchesPathPattern('/a/b', '/*/drafts')).toBe(false);
  });

  it('take no exponential time on a pattern that would backtrack a regular expression', () => {
    const path = `/${'a'.repeat(5000)}`;
    expect(matchesPathPattern(path, `/${'*a'.repeat(30)}b`)).toBe(false);
  });
});
