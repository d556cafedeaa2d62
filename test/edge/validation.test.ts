import { describe, expect, it } from 'vitest';
import { DEFAULT_EGRESS_POLICY } from '../../lib/egress/policy.js';
import { ServiceError } from '../../lib/errors/index.js';
import { parseScrapeBody, parseScrapeQuery } from '../../lib/scrape/params.js';
import { SessionContextSchema } from '../../lib/store/sessions/index.js';
import { allowancePeriod } from '../../lib/store/allowance-period.js';
import { isInstantInRange, utcDate } from '../../lib/validation/dates.js';
import { MAX_JSON_DEPTH, decodeJsonInput, findRefusedInput, nestsDeeperThan } from '../../lib/validation/json-input.js';
import { printable, storableJson, storableString, unstorableReason } from '../../lib/validation/storable.js';

function thrown(run: () => unknown): ServiceError {
  try {
    run();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('nothing thrown');
}

describe('text the store cannot hold', () => {
  it.each([
    ['a\u0000b', /NUL/],
    ['\ud800', /lone surrogate \(U\+D800\)/],
    ['x\udfff', /lone surrogate \(U\+DFFF\)/],
    ['\udc00\ud800', /lone surrogate \(U\+DC00\)/],
  ])('refuses %j', (text, reason) => {
    expect(unstorableReason(text)).toMatch(reason);
    expect(storableString().safeParse(text).success).toBe(false);
  });

  it.each(['', 'plain', 'émoji 😀 pair', '\t\r\n', '\uFFFD'])('accepts %j', (text) => {
    expect(unstorableReason(text)).toBeNull();
    expect(storableString().parse(text)).toBe(text);
  });

  it('escapes what a detail echoes and replaces what a record keeps', () => {
    expect(printable('k\u0000\ud800😀')).toBe('k\\u0000\\ud800😀');
    const json = storableJson({ detail: 'a\u0000b', ['k\ud800']: ['\udc00'], at: new Date(0) });
    expect(JSON.parse(json)).toEqual({ detail: 'a\uFFFDb', 'k\uFFFD': ['\uFFFD'], at: '1970-01-01T00:00:00.000Z' });
  });
});

describe('decoding JSON input', () => {
  it('bounds nesting before parsing, strings with brackets do not count', () => {
    expect(nestsDeeperThan('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(`{"a":"${'['.repeat(1000)}\\"${'{'.repeat(1000)}"}`, 2)).toBe(false);
    const deep = thrown(() => decodeJsonInput(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`));
    expect(deep.code).toBe('ERR::REQUEST::INVALID');
    expect(deep.detail).toContain('deeper than 64 levels');
  });

  it('names a member an object repeats (JSON.parse would keep the last silently), wherever it is', () => {
    expect(thrown(() => decodeJsonInput('{"url":"https://a.example/","url":"https://b.example/"}')).detail).toBe('url: appears twice in its object; send each field once');
    expect(thrown(() => decodeJsonInput('{"items":[{"url":"x"},{"url":"y", "external_id" : "1","external_id":"2"}]}')).detail).toBe(
      'items[1].external_id: appears twice in its object; send each field once',
    );
    expect(thrown(() => decodeJsonInput('{"a":{"b":1,"b":2}}', 'extract')).detail).toMatch(/^extract\.a\.b: appears twice/);
    // The same name in different objects, and colons inside strings, are no repeats.
    expect(decodeJsonInput('{"a":{"x":1},"b":{"x":"k:v","y":"a\\"b:c"}}')).toEqual({ a: { x: 1 }, b: { x: 'k:v', y: 'a"b:c' } });
  });

  it('names prototype keys and unstorable keys or values by path', () => {
    expect(findRefusedInput(JSON.parse('{"items":[{"url":"x","__proto__":{}}]}'))?.path).toEqual(['items', 0, '__proto__']);
    expect(findRefusedInput(JSON.parse('{"a":{"constructor":1}}'))?.path).toEqual(['a', 'constructor']);
    expect(thrown(() => decodeJsonInput('{"a":[1,{"prototype":2}]}')).detail).toBe(`a[1].prototype: "prototype" is not accepted as a key (it names an object's prototype)`);
    expect(thrown(() => decodeJsonInput('{"k\\u0000":1}')).detail).toBe('k\\u0000: key contains a NUL character (U+0000), which is not accepted');
    expect(thrown(() => decodeJsonInput('{"a":["ok","\\ud800"]}')).detail).toMatch(/^a\[1\]: contains a lone surrogate/);
    expect(decodeJsonInput('{"a":"😀","b":[{"c":null}]}')).toEqual({ a: '😀', b: [{ c: null }] });
  });

  it('decodes a JSON query parameter the same way, naming the parameter', () => {
    const error = thrown(() => parseScrapeQuery({ url: 'https://example.com/', extract: '{"__proto__":{"x":"h1"}}' }, { projectDefaults: {}, egressPolicy: DEFAULT_EGRESS_POLICY }));
    expect(error.code).toBe('ERR::REQUEST::INVALID_PARAMETER');
    expect(error.detail).toMatch(/^extract\.__proto__:/);
  });
});

describe('schemas use the shared string check (callers that bypass the HTTP decoder)', () => {
  const options = { projectDefaults: {}, egressPolicy: DEFAULT_EGRESS_POLICY };
  it.each([
    [{ url: 'https://example.com/', session_id: 'a\u0000' }, 'session_id'],
    [{ url: 'https://example.com/\ud800' }, 'url'],
    [{ url: 'https://example.com/', sticky_key: '\udc00' }, 'sticky_key'],
    [{ url: 'https://example.com/', custom_headers: { 'X-A': 'a\u0001b' } }, 'custom_headers.X-A'],
  ])('parseScrapeBody %j names %s', (body, field) => {
    const error = thrown(() => parseScrapeBody(body, options));
    expect(error.code).toBe('ERR::REQUEST::INVALID_PARAMETER');
    expect(error.detail).toContain(field);
  });

  it('session context cookies and storage', () => {
    const cookie = SessionContextSchema.safeParse({ cookies: [{ name: 'n', value: 'v\u0000', domain: 'example.com' }] });
    expect(cookie.error?.issues[0].path).toEqual(['cookies', 0, 'value']);
    const storage = SessionContextSchema.safeParse({ local_storage: { 'https://example.com': { k: '\ud800' } } });
    expect(storage.error?.issues[0].path).toEqual(['local_storage', 'https://example.com', 'k']);
  });
});

describe('dates (issue 8 item 8)', () => {
  it('utcDate keeps years 0-99, which Date.UTC reads as 1900-1999', () => {
    expect(utcDate(50, 5, 15).toISOString()).toBe('0050-06-15T00:00:00.000Z');
    expect(utcDate(4, 2, 0).toISOString()).toBe('0004-02-29T00:00:00.000Z');
    expect(utcDate(2025, 12, 1).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(utcDate(2024, 1, 31).toISOString()).toBe('2024-03-02T00:00:00.000Z');
  });

  it('the allowance month of a date in years 0-99 lies in that year', () => {
    const createdAt = new Date('2026-01-31T10:00:00Z');
    const period = allowancePeriod(createdAt, new Date('0050-02-10T00:00:00Z'));
    expect(period.start.toISOString()).toBe('0050-01-31T00:00:00.000Z');
    expect(period.end.toISOString()).toBe('0050-02-28T00:00:00.000Z');
    const leap = allowancePeriod(createdAt, new Date('0000-03-01T00:00:00Z'));
    expect(leap.start.toISOString()).toBe('0000-02-29T00:00:00.000Z');
  });

  it('accepts instants from the epoch to the end of 9998 only', () => {
    expect(isInstantInRange(new Date('1970-01-01T00:00:00Z'))).toBe(true);
    expect(isInstantInRange(new Date('9998-12-31T23:59:59.999Z'))).toBe(true);
    expect(isInstantInRange(new Date('9999-01-01T00:00:00Z'))).toBe(false);
    expect(isInstantInRange(new Date('1969-12-31T23:59:59.999Z'))).toBe(false);
    expect(isInstantInRange(new Date(8.64e15))).toBe(false);
    expect(isInstantInRange(new Date(Number.NaN))).toBe(false);
  });
});
