import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isToolLine } from '../../worker/content/main/furniture-lines.js';
import { processContent } from '../../worker/content/pipeline.js';
import { htmlInput } from './content-input.js';

const PAGE = readFileSync(new URL('./fixtures/article-lines.html', import.meta.url), 'utf8');
const BR_PAGE = readFileSync(new URL('./fixtures/article-br-lines.html', import.meta.url), 'utf8');

function render(format: 'markdown' | 'text'): string {
  return processContent(htmlInput(PAGE, 'https://news.example.org/2025/flood', { response_format: format })).body;
}

describe('main content: furniture lines inside the chosen article', () => {
  for (const format of ['markdown', 'text'] as const) {
    it(`${format}: keeps the story, its help list and its closing sentence`, () => {
      const body = render(format);
      expect(body).toMatch(/^#? ?Flood barrier holds as river peaks at record height/);
      for (const kept of [
        'The new flood barrier on the east bank held',
        'opened the overflow channel twice',
        'will stay closed until the water has gone down',
        'Where to find help',
        'the fire station yard',
        'The council meets on Monday.',
      ]) {
        expect(body).toContain(kept);
      }
    });

    it(`${format}: keeps the writer's credit line between the headline and the story`, () => {
      const body = render(format);
      expect(body).toContain('Staff Writer');
    });

    it(`${format}: drops the page tools inside the story (text size, "story continues below")`, () => {
      const body = render(format);
      for (const dropped of ['Story continues below', 'Text size', 'Smaller']) expect(body).not.toContain(dropped);
    });

    it(`${format}: drops the picture's caption and credit`, () => {
      const body = render(format);
      expect(body).not.toContain('Volunteers stacked sandbags');
      expect(body).not.toContain('Lena Berg');
    });

    it(`${format}: drops the section names after the story's last sentence`, () => {
      const body = render(format);
      expect(body).not.toContain('Latest News');
      expect(body).not.toContain('Site Tools');
    });
  }

  it('markdown keeps the picture with its alt text; text gives a picture no text', () => {
    expect(render('markdown')).toContain('![Sandbags stacked along the new barrier at dawn](https://news.example.org/img/barrier.jpg)');
    expect(render('text')).not.toContain('Sandbags stacked along the new barrier');
  });

  it('tells a tool line from a sentence that names a tool', () => {
    expect(isToolLine('Print this article')).toBe(true);
    expect(isToolLine('Share | Digg this | RSS')).toBe(true);
    expect(isToolLine('Email to a friend | Printer friendly')).toBe(true);
    expect(isToolLine('Click photo to enlarge')).toBe(true);
    expect(isToolLine('Print the form and send it to the council.')).toBe(false);
  });
});

describe('main content: furniture lines glued to the story by a single <br>', () => {
  const renderBr = (format: 'markdown' | 'text'): string =>
    processContent(htmlInput(BR_PAGE, 'https://news.example.org/2025/ferry', { response_format: format })).body;

  for (const format of ['markdown', 'text'] as const) {
    it(`${format}: keeps the byline and credit that open the first paragraph, and the paragraph`, () => {
      const body = renderBr(format);
      expect(body).toContain('ANNA LUND');
      expect(body).toContain('Staff and agencies');
      expect(body).toContain('The night ferry to the outer islands sailed again');
    });

    it(`${format}: keeps the last paragraph's sentence`, () => {
      expect(renderBr(format)).toContain('building materials before the spring.');
    });

    it(`${format}: keeps a list written with <br> after the story (lines with numbers are not labels)`, () => {
      const body = renderBr(format);
      expect(body).toContain('Crossing times on the first night:');
      expect(body).toMatch(/Outer Skerry \(North\) 2:31/);
      expect(body).toMatch(/Long Holm \(South\) 2:47\s*$/);
    });
  }
});
