import { afterAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../lib/errors/index.js';
import { validateExtractRules } from '../../lib/extract/extract-rules.js';
import { ContentPool } from '../../worker/content/pool.js';
import { processContent } from '../../worker/content/pipeline.js';
import { fixture, htmlInput } from './content-input.js';
import { deeplyNestedPage, hugePage, PATHOLOGICAL_SELECTORS, widePage } from './hostile-pages.js';

// These tests are about results, not the deadline (tested below with its own pool): a loaded machine
// may take far longer than the production deadline, so the shared pool gets a generous one.
const HEAVY_MS = 180_000;
const pool = new ContentPool({ threads: 2, timeoutMs: HEAVY_MS, convertInlineMaxChars: 0 });
afterAll(() => pool.close());

describe('ContentPool', () => {
  it('runs the pipeline on a worker thread and answers the same as in-process', async () => {
    const input = htmlInput(fixture('article.html'), 'https://journal.example.com/a', { response_format: 'markdown' });
    const out = await pool.run(input);
    expect(out.body).toBe(processContent(input).body);
  });

  it('brings ServiceErrors back as ServiceErrors', async () => {
    const input = htmlInput(fixture('product.html'), 'https://shop.example.com/', { extract_preset: 'x' });
    const error = await pool.run(input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    // The page was fetched first: its status travels with the refusal (the request log's http_status).
    expect(error).toMatchObject({ code: 'ERR::EXTRACT::INVALID_RULES', status: 400, targetStatus: 200 });
  });

  it('answers a small page the same on the caller\'s thread as on a worker thread', async () => {
    const threadOnly = new ContentPool({ threads: 1, timeoutMs: HEAVY_MS, inlineMaxChars: 0, convertInlineMaxChars: 0 });
    const shell = '<html><body><div id="root"></div><script src="/app.js"></script></body></html>';
    const inputs = [
      htmlInput(shell, 'https://app.example.com/'),
      htmlInput('<html><body><p>A short page.</p></body></html>', 'https://e.example.com/'),
      { ...htmlInput('{"a":1}', 'https://api.example.com/'), page: { finalUrl: 'https://api.example.com/', status: 200, mediaType: 'application/json', text: '{"a":1}' } },
      htmlInput(shell, 'https://app.example.com/', { response_format: 'markdown' }),
      htmlInput(shell, 'https://app.example.com/', { links: true }),
      htmlInput(shell, 'https://app.example.com/', { extract_preset: 'x' }),
    ];
    try {
      for (const input of inputs) {
        const [here, there] = await Promise.all([pool.run(input).catch((e: unknown) => e), threadOnly.run(input).catch((e: unknown) => e)]);
        const comparable = (out: unknown) => (out instanceof ServiceError ? out.toWire() : { ...(out as object), extractMs: 0 });
        expect(comparable(here)).toEqual(comparable(there));
      }
      expect((await pool.run(inputs[0])).needsJavaScript).toBe(true);
    } finally {
      await threadOnly.close();
    }
  });

  it('converts a small page on the caller\'s thread, with the same answer as on a worker thread', async () => {
    // A thread's answer would miss this deadline: the task waits for the thread to start (hundreds of ms under tsx).
    const inline = new ContentPool({ threads: 1, timeoutMs: 1, convertInlineMaxChars: 8192 });
    const inputs = [
      htmlInput(fixture('article.html'), 'https://journal.example.com/a', { response_format: 'markdown' }),
      htmlInput(fixture('article.html'), 'https://journal.example.com/a', { response_format: 'text' }),
      htmlInput(fixture('article.html'), 'https://journal.example.com/a', { response_format: 'json', links: true, autoparse: true }),
      htmlInput(fixture('tables.html'), 'https://journal.example.com/t', { response_format: 'html', main_content_only: true }),
    ];
    try {
      for (const input of inputs) {
        const [here, there] = await Promise.all([inline.run(input), pool.run(input)]);
        expect({ ...here, extractMs: 0 }).toEqual({ ...there, extractMs: 0 });
      }
      // Too many characters, or too many tags in few characters: a thread's work, and its deadline.
      const long = htmlInput(`<html><body><p>${'word '.repeat(2000)}</p></body></html>`, 'https://e.example.com/', { response_format: 'markdown' });
      const tagged = htmlInput(`<html><body>${'<p>x'.repeat(200)}</body></html>`, 'https://e.example.com/', { response_format: 'markdown' });
      await expect(inline.run(long)).rejects.toMatchObject({ code: 'ERR::ENGINE::RENDER_FAILED' });
      await expect(inline.run(tagged)).rejects.toMatchObject({ code: 'ERR::ENGINE::RENDER_FAILED' });
    } finally {
      await inline.close();
    }
  });

  it('keeps the event loop free while a heavy page is processed', async () => {
    let ticks = 0;
    const interval = setInterval(() => (ticks += 1), 1);
    const heavy = pool.run(htmlInput(hugePage(3), 'https://e.example.com/', { response_format: 'markdown' }));
    const ticked = new Promise<void>((resolve) => {
      const check = setInterval(() => ticks >= 3 && (clearInterval(check), resolve()), 1);
    });
    const first = await Promise.race([ticked.then(() => 'loop'), heavy.then(() => 'page')]);
    clearInterval(interval);
    expect(first).toBe('loop');
    expect((await heavy).body).toContain('| cell | [row link](https://e.example.com/row) | value |');
  }, HEAVY_MS);

  it('kills a task over its deadline and answers ERR::ENGINE::RENDER_FAILED', async () => {
    const strict = new ContentPool({ threads: 1, timeoutMs: 1 });
    try {
      const error = await strict.run(htmlInput(hugePage(3), 'https://e.example.com/', { response_format: 'markdown' })).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'ERR::ENGINE::RENDER_FAILED', detail: expect.stringContaining('exceeded 1 ms') });
    } finally {
      await strict.close();
    }
  });
});

describe('hostile pages', () => {
  it('flattens 50,000-deep nesting instead of overflowing the stack', async () => {
    const out = await pool.run(htmlInput(deeplyNestedPage(), 'https://e.example.com/', { response_format: 'markdown', links: true, autoparse: true }));
    const envelope = out.envelope as { content: string; warnings: string[] };
    expect(envelope.content).toBe('Before the pit.\n\ndeep text\n\nAfter the pit.');
    expect(envelope.warnings).toEqual([expect.stringContaining('CONTENT_FLATTENED')]);
  }, HEAVY_MS);

  it('cuts 20 MB of markup at the size cap and says so', async () => {
    const out = await pool.run(htmlInput(hugePage(20), 'https://e.example.com/', { response_format: 'text' }));
    expect(out.warnings).toEqual([expect.stringContaining('CONTENT_TRUNCATED')]);
    expect(out.body.startsWith('Huge\n\n')).toBe(true);
  }, HEAVY_MS);

  it.each(PATHOLOGICAL_SELECTORS)('refuses the pathological selector %s before any fetch', (selector) => {
    expect(() => validateExtractRules({ field: selector })).toThrow(expect.objectContaining({ code: 'ERR::EXTRACT::INVALID_RULES' }));
  });

  it('answers allowed selectors on a wide page', async () => {
    const rules = { spans: { selector: 'div.a:has(span.b) > span', type: 'list' } };
    const out = await pool.run(htmlInput(widePage(), 'https://e.example.com/', { extract: rules }));
    expect((out.envelope as { data: { spans: string[] } }).data.spans).toHaveLength(1000);
  }, HEAVY_MS);
});
