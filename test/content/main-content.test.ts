import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processContent } from '../../worker/content/pipeline.js';
import { htmlInput } from './content-input.js';

function page(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}.html`, import.meta.url), 'utf8');
}

function render(name: string, format: 'markdown' | 'text' | 'html', extra: Record<string, unknown> = {}): string {
  return processContent(htmlInput(page(name), `https://site.example.com/${name}/`, { response_format: format, ...extra })).body;
}

interface Layout {
  name: string;
  kept: string[];
  dropped: string[];
}

const LAYOUTS: Layout[] = [
  {
    name: 'article',
    kept: ['Harbour seals return to the estuary', 'Volunteers counted more than three hundred harbour seals', 'Why the colony grew', 'We have never seen pups this far upstream', 'Pups counted: 48', 'keep dogs on leads'],
    dropped: ['News desk', 'We use cookies', 'Share on Chirper', 'Otters spotted in the canal', 'I saw them last week', 'Ferry timetable changes', 'newsletter every morning', 'All rights reserved'],
  },
  {
    name: 'home',
    kept: ['Council approves the new lakeside footpath', 'two-mile path will link the marina', 'Winter rowing regatta draws record entries', 'Library extends opening hours'],
    dropped: ['Jobs board', 'Manage cookie preferences', 'boat insurance', 'Contact the newsroom'],
  },
  {
    name: 'listing',
    kept: ['Recipes tagged: soup', 'Leek and potato soup', 'thick, peppery soup', 'Red lentil and cumin soup', 'Pea and mint soup'],
    dropped: ['Popular tags', 'Bread recipes', 'sign up for weekly menus'],
  },
  {
    name: 'product',
    kept: ['Trail Kettle 1.2 L', '£24.99', 'boils a litre of water in under four minutes', 'Weight: 210 g', 'Hard-anodised aluminium'],
    dropped: ['Your account', 'Add to basket', 'Customers also bought', 'Enamel camping mug', 'Free delivery on orders'],
  },
  {
    name: 'docs',
    kept: ['Configuring retries', 'retries a failed upload three times', 'Changing the limit', 'retries = 5', 'A value of zero turns retries off'],
    dropped: ['Installation guide', 'Authentication setup', 'On this page', 'released under the MIT licence'],
  },
  {
    name: 'forum',
    kept: ['Sourdough starter smells of nail varnish?', 'smelled strongly of nail varnish remover', 'That acetone smell means it is hungry', 'doubled in six hours'],
    dropped: ['Log in', 'Read the rules before posting', 'Post reply', 'run by volunteers'],
  },
];

describe('main_content_only on each kind of page', () => {
  for (const layout of LAYOUTS) {
    for (const format of ['markdown', 'text'] as const) {
      it(`${layout.name} page, ${format}: keeps the content and drops the furniture`, () => {
        const body = render(layout.name, format);
        for (const text of layout.kept) expect(body).toContain(text);
        for (const text of layout.dropped) expect(body).not.toContain(text);
      });
    }
  }

  it('keeps headings, lists, GFM tables, fenced code with its language, quotes and absolute images in article markdown', () => {
    const markdown = render('article', 'markdown');
    expect(markdown).toMatch(/^# Harbour seals return to the estuary$/m);
    expect(markdown).toMatch(/^## Why the colony grew$/m);
    expect(markdown).toMatch(/^- Adults counted: 312 on the northern banks$/m);
    expect(markdown).toContain('| Year | Seals |');
    expect(markdown).toContain('```python\nprint(sum([312, 48]))\n```');
    expect(markdown).toMatch(/^> We have never seen pups/m);
    expect(markdown).toContain('![Seals resting on a sandbank at low tide](https://site.example.com/img/colony.jpg)');
    expect(markdown).toContain('[local volunteers](https://site.example.com/trust)');
  });

  it('keeps the docs code block with its language', () => {
    expect(render('docs', 'markdown')).toContain('```toml\n[network]\nretries = 5');
  });

  it('answers the cleaned article as html with main_content_only=true, and the whole page without it', () => {
    const cleaned = render('article', 'html', { main_content_only: true });
    expect(cleaned).toContain('Volunteers counted more than three hundred harbour seals');
    expect(cleaned).not.toContain('Otters spotted in the canal');
    expect(cleaned).not.toContain('We use cookies');
    const whole = render('article', 'markdown', { main_content_only: false });
    expect(whole).toContain('Otters spotted in the canal');
    expect(whole).toContain('All rights reserved');
  });

  it('applies include_tags and exclude_tags before main content', () => {
    const body = render('article', 'markdown', { include_tags: ['main'], exclude_tags: ['blockquote'] });
    expect(body).toContain('Volunteers counted');
    expect(body).not.toContain('We have never seen pups');
    expect(body).not.toContain('Ferry timetable changes');
    expect(body).not.toContain('Otters spotted in the canal');
  });

  it('never answers an empty body for a page with text, even one made only of short lines', () => {
    const html = '<html><body><div><span>Opening hours</span><br><span>Mon to Fri, 9 to 5</span></div></body></html>';
    const text = processContent(htmlInput(html, 'https://site.example.com/', { response_format: 'text' })).body;
    expect(text).toContain('Opening hours');
    expect(text).toContain('Mon to Fri, 9 to 5');
  });
});
