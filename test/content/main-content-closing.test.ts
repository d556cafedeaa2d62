import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isCreditLine } from '../../worker/content/main/furniture-lines.js';
import { processContent } from '../../worker/content/pipeline.js';
import { htmlInput } from './content-input.js';

const CLOSING = readFileSync(new URL('./fixtures/article-closing.html', import.meta.url), 'utf8');
const CELLS = readFileSync(new URL('./fixtures/article-layout-cells.html', import.meta.url), 'utf8');
const SHARED = readFileSync(new URL('./fixtures/article-shared-lines.html', import.meta.url), 'utf8');

function render(page: string, format: 'markdown' | 'text'): string {
  return processContent(htmlInput(page, 'https://gazette.example.org/2025/ferry', { response_format: format })).body;
}

describe('main content: box titles, credits, polls and closing boxes', () => {
  for (const format of ['markdown', 'text'] as const) {
    it(`${format}: keeps the story, its deck and its last sentence`, () => {
      const body = render(CLOSING, format);
      for (const kept of [
        'Harbour ferry returns after winter repairs',
        'Crews replaced the propeller shaft and repainted the hull',
        'The harbour ferry went back into service on Friday morning',
        'The first crossing left at seven',
        'running again from the start of April.',
      ]) {
        expect(body).toContain(kept);
      }
    });

    it(`${format}: keeps short headings between the headline and the story (a box's title is not told from a subheading)`, () => {
      const body = render(CLOSING, format);
      expect(body).toContain('Subscription Deals');
      expect(body).toContain('Crews replaced the propeller shaft');
    });

    it(`${format}: drops the closing credits and the rights sentence`, () => {
      const body = render(CLOSING, format);
      expect(body).not.toContain('contributed to this report');
      expect(body).not.toContain('can be reached at');
      expect(body).not.toContain('may not be published, broadcast');
    });

    it(`${format}: ends the article at a "Related Articles" line that opens a paragraph of <br> lines`, () => {
      const body = render(CLOSING, format);
      expect(body).not.toContain('Related Articles');
      expect(body).not.toContain('Bridge plan shelved');
    });

    it(`${format}: ends the article at "About the author" and keeps the results table above it`, () => {
      const body = render(CELLS, format);
      expect(body).toContain('The results of the finals');
      expect(body).toContain('Coxless fours');
      expect(body).toContain('6:48');
      expect(body).not.toContain('About the author');
      expect(body).not.toContain('coaches the junior crews');
      expect(body).not.toContain('A publication of the Valley Press Group');
    });
  }

  for (const format of ['markdown', 'text'] as const) {
    it(`${format}: keeps the date under the headline and a date line between the story's paragraphs (never a line of the story)`, () => {
      const body = render(SHARED, format);
      expect(body).toMatch(/^(\*\*)?Snow closes the pass road for a third day/);
      expect(body).toContain('The pass road stayed closed for a third day on Tuesday');
      expect(body).toContain('Drivers going to the valley towns');
      expect(body).toContain('if the ploughs can reach the summit.');
      expect(body).toContain('2025-02-11');
      expect(body).toContain('Updated: Tue');
    });

    it(`${format}: takes the headline from a title whose parts are joined by an underscore or a bare pipe`, () => {
      const story =
        '<p>The ferry timetable returns to crossings every half hour on Monday, the operator said, after the winter timetable of one boat an hour ends with the clocks going forward.</p>' +
        '<p>The late boat on Fridays and Saturdays comes back in April, and the first of the half-hourly crossings will leave at six instead of seven from the north quay.</p>';
      for (const title of ['Ferry timetable returns to half-hourly crossings_English_Gazette', 'Ferry timetable returns to half-hourly crossings|Coast Gazette']) {
        const body = render(`<html><head><title>${title}</title></head><body><div>${story}</div></body></html>`, format);
        expect(body).toMatch(/^#? ?Ferry timetable returns to half-hourly crossings\n/);
        expect(body).not.toContain('Gazette');
      }
    });
  }

  // Markdown drops every form in its writer; text keeps a form's text, so a poll is furniture for it here.
  it("text: drops a reader poll inside the story's block", () => {
    const body = render(CLOSING, 'text');
    expect(body).not.toContain('Our poll');
    expect(body).not.toContain('Yes to the higher fare');
  });

  it('tells a credit line from a sentence of the story', () => {
    expect(isCreditLine('Associated Press writer Jane Roe in Oslo contributed to this report.')).toBe(true);
    expect(isCreditLine('Staff writer Anna Lund can be reached at alund@gazette.example.org.')).toBe(true);
    expect(isCreditLine('- This article was originally published on page 20 of the Coast Gazette on March 14, 2025')).toBe(true);
    expect(isCreditLine('The mayor said the ferry could be reached at low tide only from the north quay.')).toBe(false);
  });
});
