import { describe, expect, it } from 'vitest';
import { processContent } from '../../worker/content/pipeline.js';
import { htmlInput } from './content-input.js';

const PROSE =
  'The harbour authority opened the new sea wall on Tuesday after three years of work, and the fishing fleet ' +
  'returned to the inner basin for the first time since the storm. Engineers said the wall would hold back a ' +
  'surge twice the height of the one that flooded the quay, and the council promised to reopen the market hall ';

function render(html: string, format: 'markdown' | 'text' | 'html'): string {
  const extra = format === 'html' ? { main_content_only: true } : {};
  return processContent(htmlInput(html, 'https://news.example.com/2024/wall', { response_format: format, ...extra })).body;
}

const ARTICLE = `<!DOCTYPE html><html><head><title>Sea wall opens</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article data-tracking="a-17"><h1>Sea wall opens</h1>
<p data-tracking="p-1">${PROSE}by the end of the month.</p>
<p>${PROSE}and said that anyone could read the <a href="/plans.pdf" title="Plans &amp; drawings" data-event="click">published plans</a> for the &amp; details&nbsp;of it.</p>
<pre data-lang="rust" data-copy="yes"><code>let wall = Wall::new(12);</code></pre>
<figure><img src="/img/wall.jpg" alt="The new wall" width="800" height="450" data-lazy="1"></figure>
<p>${PROSE}before the summer season.</p>
</article></body></html>`;

describe('main content built from the parsed page (no second parse)', () => {
  it('markdown keeps what its writer reads of the attributes: link titles, code language, images', () => {
    const markdown = render(ARTICLE, 'markdown');
    expect(markdown).toContain('[published plans](https://news.example.com/plans.pdf "Plans & drawings")');
    expect(markdown).toContain('```rust\nlet wall = Wall::new(12);\n```');
    expect(markdown).toContain('![The new wall](https://news.example.com/img/wall.jpg)');
    expect(markdown).toContain('for the & details\u00a0of it.');
    expect(markdown).not.toContain('Home');
  });

  it('html with main_content_only keeps every attribute of the article', () => {
    const html = render(ARTICLE, 'html');
    expect(html).toContain('data-tracking="p-1"');
    expect(html).toContain('data-event="click"');
    expect(html).toContain('data-copy="yes"');
    expect(html).not.toContain('href="https://news.example.com/news"');
  });

  it('an article Readability finds only on its second run comes out as on the first (the page is restored and prepared again)', () => {
    // Readability drops class "extra" as an unlikely candidate, finds too little, and starts again without that rule.
    const page = `<!DOCTYPE html><html><head><title>Quay</title></head><body><div class="extra">
      <div>${PROSE}in the spring.<br><br>${PROSE}once the pumps are in.</div></div></body></html>`;
    const html = render(page, 'html');
    expect(html).toContain('id="readability-page-1"');
    expect(html).toContain('in the spring.');
    expect(html).toContain('<p>The harbour authority');
    expect(html).not.toMatch(/<br/);
    expect(render(page, 'text')).toContain('once the pumps are in.');
  });
});
