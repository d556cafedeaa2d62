import { describe, expect, it, vi } from 'vitest';
import { fixture, htmlInput } from './content-input.js';

/**
 * A page's main-content answer must not depend on the pages converted before it on the same thread
 * (until issue 31 the pick reused one linkedom DOM per thread; it must keep no state now either).
 */
const SHORT_ARTICLE = `<!DOCTYPE html><html><head><title>Short note | Site</title><meta name="author" content="A. Writer"></head><body>
<nav><a href="/a">A</a> <a href="/b">B</a></nav><div class="post"><h1>Short note</h1><p>Only two lines of text here, <a href="javascript:void(0)">a script link</a>.</p>
<p>Readability starts again with laxer rules when its pick is this short.</p></div><footer>© Site</footer></body></html>`;

/** Paragraphs straight in the body: Readability scores the body itself (its marks stay on the element). */
const BODY_TEXT = `<!DOCTYPE html><html><head><title>Notes</title></head><body><p>${'A first paragraph of plain running text, long enough to score. '.repeat(4)}</p>
<p>${'A second paragraph, also straight in the body, with commas, and more words. '.repeat(4)}</p><table><tr><td><p>${'Text in a layout table cell, as old pages have it. '.repeat(5)}</p></td></tr></table></body></html>`;

const PAGES: Array<[string, string]> = [
  ['article', fixture('article.html')],
  ['product', fixture('product.html')],
  ['tables', fixture('tables.html')],
  ['social', fixture('social.html')],
  ['base-links', fixture('base-links.html')],
  ['short article', SHORT_ARTICLE],
  ['body text', BODY_TEXT],
];

const FORMATS = [
  { response_format: 'markdown', main_content_only: true },
  { response_format: 'text', main_content_only: true },
  { response_format: 'html', main_content_only: true },
] as const;

type Convert = (typeof import('../../worker/content/pipeline.js'))['processContent'];

/** The pipeline as a new thread loads it: nothing converted on it yet. */
async function freshPipeline(): Promise<Convert> {
  vi.resetModules();
  return (await import('../../worker/content/pipeline.js')).processContent;
}

function answer(convert: Convert, name: string, html: string, format: (typeof FORMATS)[number]): string {
  return convert(htmlInput(html, `https://example.com/${encodeURIComponent(name)}`, format)).body;
}

describe('main content of pages converted one after another', () => {
  it('answers each page as a thread that converted nothing before it does, whatever came before', async () => {
    const firsts = new Map<string, string>();
    for (const [name, html] of PAGES) {
      for (const format of FORMATS) firsts.set(`${name} ${format.response_format}`, answer(await freshPipeline(), name, html, format));
    }
    const shared = await freshPipeline();
    for (const order of [PAGES, [...PAGES].reverse(), PAGES]) {
      for (const [name, html] of order) {
        for (const format of FORMATS) {
          const key = `${name} ${format.response_format}`;
          expect(answer(shared, name, html, format), key).toBe(firsts.get(key));
        }
      }
    }
    expect(firsts.get('short article markdown')).toContain('a script link');
    expect(firsts.get('short article markdown')).not.toContain('javascript:');
    expect(firsts.get('article markdown')).toContain('# How Tide Tables Work');
    expect(firsts.get('body text text')).toContain('A second paragraph');
  });
});
