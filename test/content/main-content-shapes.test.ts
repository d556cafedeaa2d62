import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processContent } from '../../worker/content/pipeline.js';
import { htmlInput } from './content-input.js';

/* Pages of other shapes than a news story: a product page, a blog post in its platform's widgets, an article filed under categories. */

function render(name: string, format: 'markdown' | 'text'): string {
  const html = readFileSync(new URL(`./fixtures/${name}.html`, import.meta.url), 'utf8');
  return processContent(htmlInput(html, 'https://shop.example.com/p/trail-runner-2', { response_format: format })).body as string;
}

describe('main content on pages of other shapes', () => {
  it("markdown keeps a product page's h1 as its headline, with the picture, the list and the link", () => {
    const markdown = render('product-page', 'markdown');
    expect(markdown).toMatch(/^# Trail Runner 2$/m);
    expect(markdown).toContain('![Trail Runner 2 in blue](https://shop.example.com/img/trail-runner-2.jpg)');
    expect(markdown).toMatch(/^## Details$/m);
    expect(markdown).toMatch(/^- Drop: 6 mm$/m);
    expect(markdown).toContain('[sizing guide](https://shop.example.com/guides/sizing)');
    expect(markdown).not.toContain('Terms');
  });

  it("text keeps a product page's headline and price", () => {
    const text = render('product-page', 'text');
    expect(text).toMatch(/^Trail Runner 2$/m);
    expect(text).toContain('€129.00');
  });

  for (const format of ['markdown', 'text'] as const) {
    it(`${format}: keeps a blog post that its platform wraps in a "widget", beside a longer column of widgets`, () => {
      const body = render('blog-widgets', format);
      expect(body).toContain('Mending a dry-stone wall');
      expect(body).toContain('The wall along the top field came down in the February gales');
      expect(body).toContain('two string lines to keep the batter.');
      for (const dropped of ['Blog archive', 'Up the valley', 'Powered by']) expect(body).not.toContain(dropped);
    });

    it(`${format}: keeps an article whose class names its category ("entry-category-social_business"), drops its comments`, () => {
      const body = render('category-classes', format);
      expect(body).toContain('A team of four can hold the whole of a product in their heads');
      expect(body).toContain('the pager at night.');
      expect(body).not.toContain('Great post');
    });
  }
});
