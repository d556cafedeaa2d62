import { firstLine } from './br-lines.js';
import { isProse, type Paragraph } from './paragraphs.js';
import { CLOSING_BOX_TITLE, TERMINATING_BLOCK } from './patterns.js';

/* Where the article ends among the paragraphs of the pick. */

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
 * paragraphs). What follows it is comments, teasers or the footer, however long.
 */
export function tailStart(list: Paragraph[]): number {
  let prose = 0;
  for (let i = 0; i < list.length; i += 1) {
    const paragraph = list[i];
    if (prose >= TAIL_AFTER_PROSE && isTerminating(firstLine(paragraph))) return i;
    if (isProse(paragraph)) prose += 1;
  }
  return list.length;
}
