import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processContent } from '../../worker/content/pipeline.js';
import { htmlInput } from './content-input.js';

const PAGE = readFileSync(new URL('./fixtures/article-noise.html', import.meta.url), 'utf8');

function render(format: 'markdown' | 'text', html = PAGE): string {
  return processContent(htmlInput(html, 'https://news.example.org/2025/turbines', { response_format: format })).body;
}

describe('main content: noise lines inside the chosen article', () => {
  for (const format of ['markdown', 'text'] as const) {
    it(`${format}: keeps the prose and the data table, keeps date lines and tag links, drops reader comments, copyright and decorative images`, () => {
      const body = render(format);
      for (const kept of ['Four tidal turbines anchored', 'around two thousand homes', 'Engineers spent two summers', '14 Jan 2025 09:30']) {
        expect(body).toContain(kept);
      }
      for (const kept of ['Posted: Tue', 'Energy']) expect(body).toContain(kept);
      for (const dropped of ['All rights reserved', 'Subscribe by feed', 'More pictures of the turbines', 'Great news for the town']) {
        expect(body).not.toContain(dropped);
      }
    });
  }

  it('keeps the article picture with its alt text and gives the headline without the site name', () => {
    const markdown = render('markdown');
    expect(markdown).toContain('![A turbine being lowered from a barge](https://news.example.org/img/turbine.jpg)');
    expect(markdown).toMatch(/^# Tidal turbines switched on off the headland$/m);
    expect(markdown).not.toContain('The Coastal Post');
  });

  it('keeps a page made mostly of link lines (a link hub) as it is', () => {
    const hub = `<html><head><title>Guides</title></head><body><main><h1>Guides</h1>
      <p><a href="/a">Getting started with the river ferry timetable</a> · <a href="/b">Parking near the harbour</a></p>
      <p><a href="/c">Walking routes along the cliffs and dunes</a> · <a href="/d">Tide tables for the bay</a></p>
      <p>Pick a guide above.</p></main></body></html>`;
    const text = render('text', hub);
    expect(text).toContain('Parking near the harbour');
    expect(text).toContain('Tide tables for the bay');
  });


  it('reads the page outside a <body> opened inside noscript, and every body of a page that opens several, once', () => {
    const story =
      '<h1>New ferry timetable starts on Monday</h1><p>The morning crossing moves to half past seven so that commuters reach the station before the first fast train, the operator said.</p><p>Evening sailings stay as they are until the summer, when a late boat returns on Fridays and Saturdays.</p>';
    const inNoscript = `<html><head><title>Ferry</title></head><noscript><body id="page"><p>Turn on scripts</p></noscript><div>${story}</div></html>`;
    expect(render('text', inNoscript)).toContain('The morning crossing moves to half past seven');
    const twoBodies = `<html><head><title>Ferry</title></head><body><p>Weather: 25 degrees</p></body><body><div>${story}</div></body></html>`;
    const text = render('text', twoBodies);
    expect(text).toContain('The morning crossing moves to half past seven');
    expect(text.split('Evening sailings stay').length - 1).toBe(1);
  });
});
