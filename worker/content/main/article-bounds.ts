import { firstLine } from './br-lines.js';
import { isProse, type Paragraph } from './paragraphs.js';
import { CLOSING_BOX_TITLE, TERMINATING_BLOCK } from './patterns.js';

/* Where the article begins and ends among the paragraphs of the pick, and the teaser lists within it. */

/**
 * Where the headline stands among the article's paragraphs (0 when it is not there): a paragraph
 * that is the headline or opens with it (headline, source and date on lines parted by single <br>).
 * What comes before it in the pick (section names, breadcrumbs, the site's name, a date, another
 * story's teaser, a column of headlines) is not the article's, as newspaper and trafilatura start
 * the article at its title.
 */
export function headlineIndex(list: Paragraph[], headline: string): number {
  const wanted = headline.replace(/\s+/g, ' ').trim().toLowerCase();
  if (wanted === '') return 0;
  const index = list.findIndex(({ text }) => {
    const lower = text.toLowerCase();
    return lower === wanted || lower.startsWith(`${wanted} `);
  });
  return Math.max(index, 0);
}

/** A terminating paragraph ends the article once this many prose paragraphs have come before it. */
const TAIL_AFTER_PROSE = 2;
/** A terminating paragraph is a short line ("Comments", "Post a comment", "Related stories"), as in boilerpipe. */
const MAX_TERMINATING = 120;

function isTerminating(text: string): boolean {
  return text.length < MAX_TERMINATING && (TERMINATING_BLOCK.test(text) || CLOSING_BOX_TITLE.test(text));
}

/**
 * Where the article ends: boilerpipe's terminating block ("Comments", "Have your say", "More
 * stories", a © line), alone or as the first line of a paragraph of <br> lines ("Related
 * Articles<br>teaser<br>teaser"), after the article's prose has begun (TAIL_AFTER_PROSE prose
 * paragraphs from the headline on). What follows it is comments, teasers or the footer, however long.
 */
export function tailStart(list: Paragraph[], start: number): number {
  let prose = 0;
  for (let i = start; i < list.length; i += 1) {
    const paragraph = list[i];
    if (prose >= TAIL_AFTER_PROSE && isTerminating(firstLine(paragraph))) return i;
    if (isProse(paragraph)) prose += 1;
  }
  return list.length;
}

/** A run of this many teasers in a row (a linked headline, maybe a short blurb) is a teaser list. */
const TEASER_ITEMS = 3;
/** A teaser's blurb is shorter than this (characters); a longer paragraph is the article's. */
const MAX_BLURB = 300;
/** A paragraph opening with at least this much link text (characters) opens with a linked headline. */
const MIN_LEAD_LINK = 10;

function isLinkLed(paragraph: Paragraph): boolean {
  return paragraph.leadLinked >= MIN_LEAD_LINK;
}

/** A short paragraph after a teaser is its blurb; an item of a link list has none outside the list. */
function isBlurb(paragraph: Paragraph, teaser: Paragraph): boolean {
  return !isLinkLed(paragraph) && paragraph.text.length < MAX_BLURB && (teaser.owner.name !== 'li' || paragraph.owner.name === 'li');
}

/**
 * Teaser lists inside the article (other stories, sponsored papers, "more headlines"): runs of
 * TEASER_ITEMS or more items in a row, each a paragraph opening with a link (the teaser's headline)
 * and maybe a short blurb; looked for in [from, end).
 */
export function teaserRuns(list: Paragraph[], from: number, end: number): Set<number> {
  const found = new Set<number>();
  let i = from;
  while (i < end) {
    if (!isLinkLed(list[i])) {
      i += 1;
      continue;
    }
    const run: number[] = [];
    let items = 0;
    let j = i;
    while (j < end && isLinkLed(list[j])) {
      const teaser = list[j];
      run.push(j);
      j += 1;
      items += 1;
      if (j < end && isBlurb(list[j], teaser)) {
        run.push(j);
        j += 1;
      }
    }
    if (items >= TEASER_ITEMS) for (const index of run) found.add(index);
    i = j;
  }
  return found;
}

/** Where the article's prose has begun: after TAIL_AFTER_PROSE prose paragraphs from the headline on. */
export function proseBegins(list: Paragraph[], start: number): number {
  let prose = 0;
  for (let i = start; i < list.length; i += 1) {
    if (isProse(list[i])) prose += 1;
    if (prose >= TAIL_AFTER_PROSE) return i + 1;
  }
  return list.length;
}
