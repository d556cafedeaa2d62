import { describe, expect, it } from 'vitest';
import { urlMatcher, type MatchCounter } from '../../../../worker/browser/url-pattern.js';

/** The documented meaning, as a (backtracking) regular expression: fine for the short strings below. */
function reference(pattern: string, url: string): boolean {
  if (!pattern.includes('*')) return url.includes(pattern);
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`, 's').test(url);
}

function randomString(alphabet: string, maxLength: number, random: () => number): string {
  let out = '';
  const length = Math.floor(random() * (maxLength + 1));
  for (let i = 0; i < length; i += 1) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

/** A seeded generator, so a failure names a case that can be replayed. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('network_capture url_pattern matcher', () => {
  it('matches substrings without a star and whole URLs with one', () => {
    expect(urlMatcher('/api/')('https://x.test/api/items')).toBe(true);
    expect(urlMatcher('/api/')('https://x.test/apis')).toBe(false);
    expect(urlMatcher('*/api/*')('https://x.test/api/items')).toBe(true);
    expect(urlMatcher('https://x.test/*.json')('https://x.test/a/b.json')).toBe(true);
    expect(urlMatcher('https://x.test/*.json')('https://x.test/a/b.json?x=1')).toBe(false);
    expect(urlMatcher('*')('')).toBe(true);
    expect(urlMatcher('a*a')('a')).toBe(false);
    expect(urlMatcher(undefined)('anything')).toBe(true);
  });

  it('agrees with the glob meaning on thousands of random patterns and URLs', () => {
    const random = mulberry32(27);
    for (let i = 0; i < 5000; i += 1) {
      const pattern = randomString('ab*', 8, random) || 'a';
      const url = randomString('ab', 12, random);
      expect([pattern, url, urlMatcher(pattern)(url)]).toEqual([pattern, url, reference(pattern, url)]);
    }
  });

  it('costs steps linear in the URL for a pathological pattern (the old regex backtracked for seconds)', () => {
    const pattern = `${'*a'.repeat(200)}*b`;
    const match = urlMatcher(pattern);
    for (const length of [1_000, 100_000]) {
      const counter: MatchCounter = { steps: 0 };
      expect(match(`https://x.test/${'a'.repeat(length)}`, counter)).toBe(false);
      expect(counter.steps).toBeLessThanOrEqual(2 * (length + 20 + pattern.length));
    }
    const counter: MatchCounter = { steps: 0 };
    expect(match(`https://x.test/${'a'.repeat(100_000)}b`, counter)).toBe(true);
    expect(counter.steps).toBeLessThanOrEqual(2 * (100_021 + pattern.length));
  });

  it('costs steps linear in the URL for a self-overlapping piece', () => {
    const piece = `${'a'.repeat(999)}b`;
    const counter: MatchCounter = { steps: 0 };
    expect(urlMatcher(`*${piece}*`)(`${'a'.repeat(200_000)}`, counter)).toBe(false);
    expect(counter.steps).toBeLessThanOrEqual(2 * 200_000);
  });
});
