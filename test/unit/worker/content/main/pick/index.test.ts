import { parseDocument } from 'htmlparser2';
import render from 'dom-serializer';
import type { Element } from 'domhandler';
import { describe, expect, it } from 'vitest';
import { flatText } from '../../../../../../worker/content/document.js';
import { findElements } from '../../../../../../worker/content/walk.js';
import { scoredArticle } from '../../../../../../worker/content/main/pick/index.js';

/** The body of `html`, parsed as the pipeline parses it. */
function body(html: string): Element {
  const [found] = findElements(parseDocument(html), (element) => element.name === 'body');
  return found;
}

/** The article container of the pick, or null. */
function scored(page: Element, title: string, bylineKnown: boolean): Element | null {
  return scoredArticle(page, title, bylineKnown)?.content ?? null;
}

function text(node: Element | null): string {
  return node ? flatText(node).replace(/\s+/g, ' ').trim() : '';
}

const PROSE = (topic: string, n = 3): string =>
  Array.from({ length: n }, (_, i) => `<p>The ${topic} paragraph ${i + 1} runs on, with commas, clauses, and enough words to count as prose for a reader of the page.</p>`).join('');

describe('scoredArticle: Readability-style pick on the parsed page', () => {
  it('picks the block of prose paragraphs over a block of links, and leaves the page as it was', () => {
    const page = body(`<body><div class="column"><a href="/1">One link</a> <a href="/2">Another link</a> <a href="/3">A third link with words</a></div>
      <div class="story">${PROSE('story', 4)}</div></body>`);
    const before = render(page);
    const article = scored(page, '', false);
    expect(text(article)).toContain('The story paragraph 4');
    expect(text(article)).not.toContain('Another link');
    expect(render(page)).toBe(before);
  });

  it('weighs a block by the share of its text that is not links: paragraphs of link text lose to fewer paragraphs of prose', () => {
    const teasers = Array.from({ length: 6 }, (_, i) => `<p><a href="/story-${i}">Teaser ${i + 1}, with commas, clauses, and words enough, for a link that reads as long as a sentence of prose</a></p>`).join('');
    const article = scored(body(`<body><div class="column">${teasers}</div><div class="column">${PROSE('story', 3)}</div></body>`), '', false);
    expect(text(article)).toContain('The story paragraph 3');
    expect(text(article)).not.toContain('Teaser 1');
  });

  it('scores loose text in a div and lines parted by a double <br> as paragraphs', () => {
    const lines = Array.from({ length: 4 }, (_, i) => `Line ${i + 1} of the letter goes on, with commas, for long enough to be a paragraph of its own.`).join('<br><br>');
    const article = scored(body(`<body><div id="nav"><a href="/x">Home</a></div><div class="letter">${lines}</div></body>`), '', false);
    expect(text(article)).toContain('Line 1 of the letter');
    expect(text(article)).toContain('Line 4 of the letter');
    expect(text(article)).not.toContain('Home');
  });

  it('drops the heading that repeats the title and the byline element, but not a byline the meta tags already name', () => {
    const html = `<body><div class="post"><h1>Harbour ferry returns</h1><div class="byline">By Anna Lund</div>${PROSE('ferry', 4)}</div></body>`;
    const dropped = text(scored(body(html), 'Harbour ferry returns | The Post', false));
    expect(dropped).not.toContain('Harbour ferry returns');
    expect(dropped).not.toContain('Anna Lund');
    expect(text(scored(body(html), 'Harbour ferry returns | The Post', true))).toContain('Anna Lund');
  });

  it('drops blocks with unlikely names before scoring, and scores them again when the pick is too short without them', () => {
    const withBreadcrumbs = text(scored(body(`<body><div class="story"><div class="breadcrumbs">Home, News, Harbour, and the rest of the trail of pages</div>${PROSE('story', 4)}</div></body>`), '', false));
    expect(withBreadcrumbs).not.toContain('trail of pages');
    const onlySidebar = text(scored(body(`<body><div class="sidebar">${PROSE('sidebar', 2)}</div></body>`), '', false));
    expect(onlySidebar).toContain('The sidebar paragraph 2');
  });

  it('joins prose paragraphs beside the pick, and cleans link-heavy blocks and empty paragraphs out of it, keeping data tables', () => {
    const links = Array.from({ length: 6 }, (_, i) => `<a href="/s/${i}">Story number ${i} elsewhere</a>`).join(' ');
    const cells = Array.from({ length: 4 }, (_, r) => `<tr><td>Mon ${r}</td><td>06:${r}0</td><td>4.${r} m</td><td>Low</td></tr>`).join('');
    const article = scored(
      body(`<body><div><div class="story">${PROSE('story', 5)}<div>${links}</div><p> </p><table><thead><tr><th>Day</th></tr></thead>${cells}</table></div>
        <p>A closing paragraph beside the story, long enough and with few links to be joined to the story by the sibling rule.</p></div></body>`),
      '',
      false,
    );
    expect(text(article)).toContain('A closing paragraph beside the story');
    expect(text(article)).not.toContain('Story number 3 elsewhere');
    expect(text(article)).toContain('06:30');
    expect(findElements(article as Element, (element) => element.name === 'p' && text(element) === '')).toHaveLength(0);
  });

  it('keeps a short list of linked items whose list items are the article (a list is not cleaned for its links alone)', () => {
    const items = Array.from({ length: 3 }, (_, i) => `<li>Step ${i + 1}: open the valve, wait, and check the gauge again before going on.</li>`).join('');
    const article = scored(body(`<body><div class="guide">${PROSE('guide', 3)}<ul>${items}</ul></div></body>`), '', false);
    expect(text(article)).toContain('Step 3: open the valve');
  });

  it('gives a layout table of one cell as that cell, and drops a <br> right before a paragraph', () => {
    const article = scored(body(`<body><div class="story"><table><tr><td>A boxed note, one cell of one row, with commas, and words enough.</td></tr></table>${PROSE('story', 3)}<br> <p>Last words of the story, long enough to be counted as a paragraph here.</p></div></body>`), '', false);
    expect(findElements(article as Element, (element) => element.name === 'table')).toHaveLength(0);
    expect(text(article)).toContain('A boxed note, one cell of one row');
    expect(findElements(article as Element, (element) => element.name === 'br')).toHaveLength(0);
  });

  it('gives a div holding only one div as that div (attributes joined), and drops empty divs', () => {
    const article = scored(body(`<body><div id="outer"><div class="story"><div> <br> </div>${PROSE('story', 4)}</div></div></body>`), '', false) as Element;
    const divs = findElements(article, (element) => element.name === 'div' && !(element.attribs.id ?? '').startsWith('readability'));
    expect(divs.map((div) => div.attribs)).toEqual([{ class: 'story', id: 'outer' }]);
  });

  it('drops presentational attributes (and sizes of tables and cells) from its copy, not from the page', () => {
    const page = body(`<body><div class="story" style="color: red" data-id="7">${PROSE('story', 3)}<table width="300" summary="Tides"><tr><td width="20" bgcolor="blue">Cell</td></tr><tr><td>Two</td></tr></table><img src="a.png" width="400" height="300"></div></body>`);
    const before = render(page);
    const article = scored(page, '', false) as Element;
    const attributes = (name: string) => findElements(article, (element) => element.name === name).map((element) => element.attribs);
    expect(attributes('div').find((attribs) => attribs.class === 'story')).toEqual({ class: 'story', 'data-id': '7' });
    expect(attributes('table')).toEqual([{ summary: 'Tides' }]);
    expect(attributes('td')).toEqual([{}, {}]);
    expect(attributes('img')).toEqual([{ src: 'a.png', width: '400', height: '300' }]);
    expect(render(page)).toBe(before);
  });

  it('gives the text of its article, also when the last pass took blank text out with a wrapper', () => {
    const picked = scoredArticle(body(`<body><div class="story">${PROSE('story', 3)}<div id="outer"> <div class="more">${PROSE('more', 2)}</div></div></div></body>`), '', false);
    expect(picked?.text).toContain('reader of the page.The more paragraph 1');
    expect(picked?.text).toBe(text(picked?.content ?? null));
  });

  it('gives null when the page has no text', () => {
    expect(scored(body('<body><div><img src="a.png"></div></body>'), '', false)).toBeNull();
  });
});
