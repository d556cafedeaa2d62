import { describe, expect, it } from 'vitest';
import { processContent } from '../../worker/content/pipeline.js';
import { fixture, htmlInput } from './content-input.js';

const ARTICLE_URL = 'https://journal.example.com/guides/2024/tides.html';

describe('markdown', () => {
  const out = processContent(htmlInput(fixture('article.html'), ARTICLE_URL, { response_format: 'markdown' }));

  it('answers text/markdown with headings, lists, code language and absolute links and images', () => {
    expect(out.contentType).toBe('text/markdown; charset=utf-8');
    expect(out.envelope).toBeNull();
    expect(out.body.startsWith('# How Tide Tables Work')).toBe(true);
    expect(out.body).toContain('## Reading a table');
    expect(out.body).toContain('1. Find your port.\n2. Find the date.');
    expect(out.body).toContain('```python\ndef rule_of_twelfths(hour):\n    return');
    expect(out.body).toContain('[chart datum](https://journal.example.com/guides/glossary#datum)');
    expect(out.body).toContain('![Tide chart for March](https://journal.example.com/guides/2024/images/tide-chart.png)');
    expect(out.body).toContain('> Time and tide wait for no one.');
  });

  it('drops navigation, footer, aside, cookie banner, ads, scripts and empty or javascript links', () => {
    for (const noise of ['News', 'Popular', 'cookies', 'Sponsored', 'Subscribe', '© 2024', 'dataLayer', 'color:red', 'javascript:', '[](']) {
      expect(out.body).not.toContain(noise);
    }
    const whole = processContent(htmlInput(fixture('article.html'), ARTICLE_URL, { response_format: 'markdown', main_content_only: false }));
    expect(whole.body).toContain('this script link');
    expect(whole.body).not.toContain('javascript:');
  });

  it('keeps the whole document with main_content_only=false', () => {
    const whole = processContent(htmlInput(fixture('article.html'), ARTICLE_URL, { response_format: 'markdown', main_content_only: false }));
    expect(whole.body).toContain('[News](https://journal.example.com/news)');
    expect(whole.body).toContain('© 2024 The Coastal Journal');
    expect(whole.body).not.toContain('dataLayer');
  });

  it('renders GFM tables, promoting a first row of cells to the header and escaping pipes', () => {
    const tables = processContent(htmlInput(fixture('tables.html'), 'https://weather.example.com/', { response_format: 'markdown' }));
    expect(tables.body).toContain('| City | Rainfall (mm) | Wettest month |\n| --- | --- | --- |\n| Bergen | 2,250 | October |');
    expect(tables.body).toContain('| Lisbon \\| Centre | 690 | November |');
    expect(tables.body).toContain('| Station | Elevation |\n| --- | --- |\n| Bergen-Florida | 12 m |');
  });
});

describe('text', () => {
  it('answers readable plain text with paragraph breaks and preformatted code kept', () => {
    const out = processContent(htmlInput(fixture('article.html'), ARTICLE_URL, { response_format: 'text' }));
    expect(out.contentType).toBe('text/plain; charset=utf-8');
    expect(out.body).toContain('How Tide Tables Work\n\nTide tables list the times and heights');
    expect(out.body).toContain('- Find your port.\n- Find the date.');
    expect(out.body).toContain('def rule_of_twelfths(hour):\n    return');
    expect(out.body).not.toMatch(/<|News|Accept all/);
  });
});

describe('html and tag selection', () => {
  it('returns the page exactly as fetched by default', () => {
    const html = fixture('article.html');
    const out = processContent(htmlInput(html, ARTICLE_URL));
    expect(out.contentType).toBe('text/html; charset=utf-8');
    expect(out.body).toBe(html);
  });

  it('applies include_tags, then exclude_tags, then main_content_only', () => {
    const out = processContent(
      htmlInput(fixture('article.html'), ARTICLE_URL, {
        response_format: 'markdown',
        include_tags: ['article', 'aside'],
        exclude_tags: ['blockquote', 'pre'],
      }),
    );
    expect(out.body).toContain('## Reading a table');
    expect(out.body).not.toContain('Time and tide');
    expect(out.body).not.toContain('rule_of_twelfths');
    expect(out.body).not.toContain('Popular');
    const kept = processContent(
      htmlInput(fixture('article.html'), ARTICLE_URL, { response_format: 'html', include_tags: ['aside'], main_content_only: false }),
    );
    expect(kept.body).toContain('Knots explained');
    expect(kept.body).not.toContain('Reading a table');
  });

  it('keeps the page\'s doctype on html it selected from', () => {
    const html = '<!DOCTYPE html><html><head><title>T</title></head><body><nav><a href="/">Home</a></nav><article><h1>Tides</h1><p>' + 'The tide turns twice a day. '.repeat(30) + '</p></article></body></html>';
    for (const params of [{ main_content_only: true }, { exclude_tags: ['nav'] }]) {
      const out = processContent(htmlInput(html, ARTICLE_URL, { response_format: 'html', ...params }));
      expect(out.body.startsWith('<!DOCTYPE html><html>'), JSON.stringify(params)).toBe(true);
      expect(out.body).not.toContain('Home');
    }
  });

  it('refuses an invalid include_tags selector', () => {
    const input = htmlInput(fixture('article.html'), ARTICLE_URL, { response_format: 'markdown', include_tags: ['div[['] });
    expect(() => processContent(input)).toThrow(expect.objectContaining({ code: 'ERR::REQUEST::INVALID_PARAMETER' }));
  });
});
