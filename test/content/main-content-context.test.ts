import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chooseHeadline } from '../../worker/content/main/headline.js';
import { processContent } from '../../worker/content/pipeline.js';
import { htmlInput } from './content-input.js';

const PAGE = readFileSync(new URL('./fixtures/article-context.html', import.meta.url), 'utf8');
const STORY = [
  '<p>The lifeboat crew was called out twice on Sunday, first to a yacht with a fouled propeller off the point and then to a walker cut off by the tide below the cliffs.</p>',
  '<p>Both calls ended well: the yacht was towed into the harbour and the walker was lifted from the rocks and brought ashore at the slipway, cold but unhurt.</p>',
  '<p>The station has asked visitors to check the tide tables before walking on the beach, as the water rises quickly along that stretch of the coast in winter.</p>',
].join('');

function text(html: string): string {
  return processContent(htmlInput(html, 'https://news.example.org/2025/story', { response_format: 'text' })).body;
}

describe('main content: context-sensitive paragraphs', () => {
  for (const format of ['markdown', 'text'] as const) {
    it(`${format}: keeps paragraphs with inline links and the date line, drops link lines and rights lines`, () => {
      const body = processContent(htmlInput(PAGE, 'https://news.example.org/2025/pier', { response_format: format })).body;
      for (const kept of [
        'Councillors said that the',
        'would pay for half of it',
        'island operator',
        "the engineers' report on the cracked piles",
        'dispute over copyright of the timetable design',
        'Work on the foundations is due to start',
        'council minutes',
        'Last Updated',
      ]) {
        expect(body).toContain(kept);
      }
      for (const dropped of ['More local news', 'All rights reserved', 'Harbour Gazette']) expect(body).not.toContain(dropped);
    });
  }

  it('gives the headline the title names, not the section heading above it', () => {
    const body = text(PAGE);
    expect(body.startsWith('Council approves new ferry pier after two-year review')).toBe(true);
    expect(body).not.toMatch(/^Local$/m);
  });

  it('reads a title element written after the head (old pages) for the headline', () => {
    const page = `<html><head></head><body><title>Lifeboat called out twice in one day</title><div class="story">${STORY}</div></body></html>`;
    expect(text(page).startsWith('Lifeboat called out twice in one day')).toBe(true);
  });

  it('puts no headline on top when the title names only the site', () => {
    const page = `<html><head><title>Harbour Gazette Online</title></head><body><div class="story">${STORY}</div></body></html>`;
    const body = text(page);
    expect(body).not.toContain('Harbour Gazette Online');
    expect(body).toContain('The lifeboat crew was called out twice on Sunday');
  });

  it('chooses the headline from the title and the headings', () => {
    const article = 'the lifeboat crew was called out twice on sunday to a yacht and a walker cut off by the tide';
    const named = { title: 'Gazette > News > Lifeboat called out twice', headings: ['News', 'Lifeboat called out twice', 'Most read'], h1s: ['News'] };
    expect(chooseHeadline(named, article, '')).toBe('Lifeboat called out twice');
    const inTitleOnly = { title: 'Lifeboat crew called out twice - Harbour Gazette', headings: ['Most read'], h1s: [] };
    expect(chooseHeadline(inTitleOnly, article, '')).toBe('Lifeboat crew called out twice');
    const siteOnly = { title: 'Harbour Gazette', headings: [], h1s: ['Lifeboat busy on Sunday'] };
    expect(chooseHeadline(siteOnly, article, '')).toBe('Lifeboat busy on Sunday');
    expect(chooseHeadline({ title: '', headings: [], h1s: [] }, article, 'Lifeboat called out twice')).toBe('Lifeboat called out twice');
  });

  it('counts a title word as in the article only where the article has it as a whole word', () => {
    const source = (title: string) => ({ title, headings: [], h1s: [] });
    // "crew" and "out" only inside longer words: one word of three is no match.
    expect(chooseHeadline(source('Crew out today | Gazette'), 'the crewman was outdone today', '')).toBe('');
    expect(chooseHeadline(source('Crew out today | Gazette'), 'the crew was out, today', '')).toBe('Crew out today');
    // Letters beyond the basic plane and accents are letters of a word, not its boundary.
    expect(chooseHeadline(source('Ñandú 𝐀río | Gazette'), 'el ñandúes y 𝐀río𝐁', '')).toBe('');
    expect(chooseHeadline(source('Ñandú 𝐀río | Gazette'), 'el ñandú y 𝐀río.', '')).toBe('Ñandú 𝐀río');
  });

});

describe('main content: the article ends at its terminating line', () => {
  const reader = (name: string, n: number) =>
    `<p>I have walked that beach for thirty years and the tide still catches people out every winter, number ${n} of many times I have said the council should put up better signs by the steps and a siren on the point.<br><b>Posted by ${name} on January 10, 2008 5:58 PM</b></p>`;
  const comments = ['Ann', 'Bob', 'Cat', 'Dan', 'Eve', 'Fay', 'Gus', 'Hal', 'Ivy', 'Jon', 'Kim', 'Lou'].map(reader).join('');
  const page = `<html><head><title>Lifeboat called out twice in one day</title></head><body><div class="story"><h1>Lifeboat called out twice in one day</h1>${STORY}<div class="hd">Comments</div>${comments}</div></body></html>`;

  it('drops the comments after the story even when they outweigh it', () => {
    const body = text(page);
    expect(body).toContain('The lifeboat crew was called out twice on Sunday');
    expect(body).toContain('check the tide tables before walking on the beach');
    expect(body).not.toContain('I have walked that beach');
    expect(body).not.toMatch(/^Comments$/m);
  });

  for (const line of ['E-mail this to a friend', 'Sponsored Links', 'More Headlines', 'Do you have comments on this story?']) {
    it(`ends the article at "${line}"`, () => {
      const after = `<p>${line}</p><p>Ten ways to save on your heating bill this winter, from sealed windows to a smarter thermostat in every room of the house.</p>`;
      const body = text(page.replace(/<div class="hd">[\s\S]*<\/div><\/body>/, `${after}</div></body>`));
      expect(body).toContain('check the tide tables before walking on the beach');
      expect(body).not.toContain('Ten ways to save');
    });
  }

  it('keeps a terminating word before the story has begun', () => {
    const opening = `<html><head><title>Lifeboat called out twice in one day</title></head><body><div class="story"><h1>Lifeboat called out twice in one day</h1><p>Comments</p>${STORY}</div></body></html>`;
    expect(text(opening)).toContain('check the tide tables before walking on the beach');
  });
});

describe('main content: teaser lists inside the article', () => {
  const teaser = (title: string, blurb: string) => `<p><a href="/story/${title.length}">${title}</a><br>${blurb}</p>`;
  const teasers = [
    teaser('Ferry timetable changes for the winter', 'The island service will run four times a day from November, with an extra sailing on Fridays.'),
    teaser('New tide warning signs on the beach', 'The council has put up signs at the steps after a series of rescues on the sands this year.'),
    teaser('Harbour festival returns in the summer', 'Boat races, a fish market and music on the quay are planned for the last weekend of July.'),
  ].join('');
  const page = (after: string) =>
    `<html><head><title>Lifeboat called out twice in one day</title></head><body><div class="story"><h1>Lifeboat called out twice in one day</h1>${STORY}${after}</div></body></html>`;

  it('keeps paragraphs that open with a link when they are not a run of teasers', () => {
    const linked = `<p><a href="/crew">The station's coxswain</a> said the crew had trained for exactly this kind of double call during the autumn exercises off the point.</p>`;
    expect(text(page(linked + teasers.slice(0, teasers.indexOf('</p>') + 4)))).toContain("The station's coxswain said the crew had trained");
  });
});
