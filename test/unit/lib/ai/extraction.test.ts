import { describe, expect, it } from 'vitest';
import { retryAfterMs, type ChatCall, type ChatOutcome, type ChatRequest } from '../../../../lib/ai/chat-client.js';
import { emptyUsage, ModelExtractor, readAnswer, type ExtractionTask } from '../../../../lib/ai/extractor.js';
import { allowsStrict, compileSchema } from '../../../../lib/ai/json-schema.js';
import { cutToBudget } from '../../../../lib/ai/model-input.js';
import { ServiceError } from '../../../../lib/errors/index.js';

describe('cutToBudget', () => {
  it('keeps a page within the budget as it is', () => {
    expect(cutToBudget('# A\n\nb', 100)).toEqual({ markdown: '# A\n\nb', cutChars: 0 });
  });

  it('cuts at the last blank line before the budget, never inside a block', () => {
    const blocks = Array.from({ length: 50 }, (_, i) => `Paragraph ${i} ${'x'.repeat(30)}`);
    const page = blocks.join('\n\n');
    const { markdown, cutChars } = cutToBudget(page, 1000);
    expect(markdown.length).toBeLessThanOrEqual(1000);
    expect(markdown.length).toBeGreaterThan(500);
    expect(blocks).toContain(markdown.split('\n\n').at(-1));
    expect(cutChars).toBe(page.length - markdown.length);
  });

  it('closes a code fence the cut leaves open', () => {
    const page = `Intro\n\n\`\`\`js\n${Array.from({ length: 100 }, (_, i) => `line(${i});`).join('\n')}\n\`\`\`\n\nEnd`;
    const { markdown } = cutToBudget(page, 400);
    expect(markdown.endsWith('\n```')).toBe(true);
    expect(markdown.match(/^```/gm)).toHaveLength(2);
  });

  it('never splits a surrogate pair when one long line must be cut', () => {
    const { markdown } = cutToBudget('\u{1F600}'.repeat(2000), 1001);
    expect(markdown.length).toBe(1000);
    expect(() => encodeURIComponent(markdown)).not.toThrow();
  });
});

describe('allowsStrict', () => {
  const closed = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'number' } } }, required: ['a', 'b'], additionalProperties: false };
  it.each([
    ['a closed object with every property required', closed, true],
    ['an open object', { ...closed, additionalProperties: true }, false],
    ['a property not required', { ...closed, required: ['a'] }, false],
    ['a nested open object', { ...closed, properties: { ...closed.properties, c: { type: 'object', properties: {} } }, required: ['a', 'b', 'c'] }, false],
    ['a keyword strict mode refuses', { ...closed, properties: { a: { type: 'string', minLength: 2 }, b: closed.properties.b } }, false],
  ])('%s: %s', (_name, schema, strict) => {
    expect(allowsStrict(schema)).toBe(strict);
  });
});

describe('compileSchema', () => {
  it('compiles two callers\' schemas with the same $id apart', () => {
    const first = compileSchema({ $id: 'https://example.com/s', type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    const second = compileSchema({ $id: 'https://example.com/s', type: 'object', properties: { b: { type: 'number' } }, required: ['b'] });
    if (!('validate' in first) || !('validate' in second)) throw new Error('both compile');
    expect(second.validate({ b: 1 })).toBe(true);
    expect(first.validate({ b: 1 })).toBe(false);
  });
});

describe('readAnswer', () => {
  const compiled = compileSchema({ type: 'object', properties: { price: { type: 'number' } }, required: ['price'] });
  const validate = 'validate' in compiled ? compiled.validate : null;
  it.each([
    ['{"price": 3}', { data: { price: 3 } }],
    ['```json\n{"price": 3}\n```', { data: { price: 3 } }],
    ['Here: {"price": 3}', { data: { price: 3 } }],
    ['[1, 2]', { problem: 'is not a JSON object' }],
    ['{"price": }', { problem: expect.stringMatching(/^is not valid JSON/) }],
    ['{"price": "3"}', { problem: 'does not match the schema: /price: must be number' }],
  ])('%s', (content, expected) => {
    expect(readAnswer(content, validate)).toEqual(expected);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
  });
});

describe('ModelExtractor', () => {
  const task = (schema: Record<string, unknown> | null, deadlineAt = 1_000_000): ExtractionTask => ({
    prompt: 'p', schema, pageUrl: 'https://example.com/', input: { markdown: '# x', cutChars: 0 }, deadlineAt,
  });
  function scripted(outcomes: ChatOutcome[]): { call: ChatCall; seen: ChatRequest[] } {
    const seen: ChatRequest[] = [];
    return { seen, call: async (request) => (seen.push(request), outcomes.shift() ?? { kind: 'failed', status: 500, message: 'script empty' }) };
  }
  const clock = { now: 0 };
  const extractor = (call: ChatCall) =>
    new ModelExtractor(call, { timeoutMs: 5000, maxRetries: 3, backoffMs: 500, now: () => clock.now, sleep: async (ms) => void (clock.now += ms) });
  const answer = (content: string): ChatOutcome => ({ kind: 'answer', content, usage: { prompt_tokens: 10, completion_tokens: 2 }, refusal: null });

  it('falls back to json_object on a refusal naming the format, and stays there', async () => {
    const { call, seen } = scripted([{ kind: 'format_refused', status: 400, message: 'json_schema unsupported' }, answer('{"a":1}'), answer('{"a":2}')]);
    const model = extractor(call);
    expect(await model.extract(task({ type: 'object' }), emptyUsage())).toEqual({ a: 1 });
    expect(await model.extract(task({ type: 'object' }), emptyUsage())).toEqual({ a: 2 });
    expect(seen.map((r) => r.mode)).toEqual(['json_schema', 'json_object', 'json_object']);
    expect(seen[1].messages[0].content).toContain('{"type":"object"}');
  });

  it('waits out a Retry-After within the deadline, and refuses one beyond it', async () => {
    clock.now = 0;
    const usage = emptyUsage();
    const { call } = scripted([{ kind: 'transient', status: 429, message: 'HTTP 429', retryAfterMs: 2000 }, answer('{"a":1}')]);
    expect(await extractor(call).extract(task(null, 10_000), usage)).toEqual({ a: 1 });
    expect(clock.now).toBe(2000);
    expect(usage).toMatchObject({ calls: 2, prompt_tokens: 10 });
    const late = scripted([{ kind: 'transient', status: 429, message: 'HTTP 429', retryAfterMs: 60_000 }]);
    await expect(extractor(late.call).extract(task(null, 10_000), emptyUsage())).rejects.toThrow(/outlast the scrape's time budget/);
  });

  it('fails with ERR::EXTRACT::FAILED after the retries run out', async () => {
    clock.now = 0;
    const transient: ChatOutcome = { kind: 'transient', status: 500, message: 'HTTP 500: boom', retryAfterMs: null };
    const { call, seen } = scripted([transient, transient, transient, transient]);
    const error = (await extractor(call).extract(task(null), emptyUsage()).catch((e: unknown) => e)) as ServiceError;
    expect(error.code).toBe('ERR::EXTRACT::FAILED');
    expect(error.detail).toBe('the model server answered HTTP 500: boom, 4 times');
    expect(seen).toHaveLength(4);
  });
});
