import type { Element } from 'domhandler';
import { flatText as textOf } from '../document.js';
import type { Paragraph } from './paragraphs.js';

/* Lines inside the chosen article that are page furniture by their words or their container. */

/** The page tools newspapers put beside a story (jusText's stop-list lines, boilerpipe's "print / e-mail" blocks). */
const TOOL_PHRASES =
  /\b(print(er)?([- ]?friendly)?( this)?( (article|story|page|version|format))?|e-?mail( this)?( (article|story|page))?( to a friend)?|send( this)?( to a friend)?|share( this)?|digg( this| it)?|font( size)?|text size|larger text|smaller text|larger|smaller|text|click (on )?(the )?(photo|image|picture) to enlarge|click to enlarge|enlarge (this )?(photo|image|picture)|story continues below|advertisement|subscribe( to this paper)?|bookmark( this)?|reprints?|rss)\b/gi;
/** A tool line is short; a longer line that names a tool is a sentence. */
const MAX_TOOL_LINE = 80;

/** A line made only of page tools ("Print this article", "E-mail | Print", "Larger text | Smaller text", "Click photo to enlarge"). */
export function isToolLine(text: string): boolean {
  return text.length <= MAX_TOOL_LINE && !/[\p{L}\p{N}]/u.test(text.replace(TOOL_PHRASES, ' '));
}

/**
 * The story's closing credits, about its making rather than its news: who else reported it ("Associated
 * Press writer Jane Roe contributed to this report."), how to reach its writer ("Staff writer John Doe
 * can be reached at ..."), where it first ran ("This article was originally published on page 28 of
 * ..."). A long line naming these is a sentence.
 */
const CREDIT = /\bcontributed to (this|the) (report|story|article)\b|\b(can|may) be (reached|contacted) (at|by|on)\b|\b(originally|first) (published|appeared|ran) (on|in)\b|\binformation (for|in) this (report|story|article)\b/i;
const MAX_CREDIT_LINE = 200;

export function isCreditLine(text: string): boolean {
  return text.length < MAX_CREDIT_LINE && CREDIT.test(text);
}

/** Class or id of a picture's caption or credit box ("caption", "photo-credit", "imageBox", "article_pic_copy"). */
const CAPTION_BOX = /caption|cutline|credit|photo|image|(?<![a-z])(img|pic)/i;
/** How many containers up from a paragraph's own block a caption box is looked for. */
const CAPTION_DEPTH = 3;

/** A picture's caption or credit (a figcaption, or a block in a caption box): the picture's, not the story's text. */
export function isCaption(owner: Element): boolean {
  let node: Element | null = owner;
  for (let depth = 0; node && node.type === 'tag' && depth < CAPTION_DEPTH; depth += 1) {
    if (node.name === 'figcaption' || CAPTION_BOX.test(`${node.attribs.class ?? ''} ${node.attribs.id ?? ''}`)) return true;
    node = node.parent as Element | null;
  }
  return false;
}

/** Under this length (characters) a line without a sentence's end is a section name or box title, not prose. */
const MAX_TAIL_LABEL = 40;

/** After the last prose paragraph, a short line that does not end as a sentence ("Latest News", "Site Tools") is a section name or a box's title. */
export function isTailLabel(paragraph: Paragraph): boolean {
  return isLabel(paragraph, MAX_TAIL_LABEL) && !/[.!?:"”)]$/.test(paragraph.text);
}

const CELLS = new Set(['td', 'th']);

export function isCell(element: Element): boolean {
  return CELLS.has(element.name);
}

/** A cell beside other filled cells in its row is data (a schedule); a cell alone in its row is page layout. */
export function isDataCell(owner: Element): boolean {
  if (!isCell(owner)) return false;
  const row = owner.parent;
  if (!row || !('children' in row)) return false;
  return row.children.some((cell) => cell !== owner && cell.type === 'tag' && isCell(cell) && textOf(cell).trim() !== '');
}

/** List items, definitions, code and data cells are never trimmed one by one; a line without words (a price, a score) is data too. */
const DATA_OWNERS = new Set(['li', 'dt', 'dd', 'pre']);

function isLabel({ text, owner }: Paragraph, maxLength: number): boolean {
  return text.length < maxLength && !DATA_OWNERS.has(owner.name) && !isDataCell(owner) && /\p{L}{2,}/u.test(text);
}

/**
 * The labels that end the article (index of the first; `end` when none): a run of tail labels after
 * the last prose paragraph with nothing but labels after them. A subheading followed by a
 * table, list or code is the article's.
 */
export function tailLabels(list: Paragraph[], lastProse: number, end: number): number {
  let first = end;
  while (first - 1 > lastProse && isTailLabel(list[first - 1])) first -= 1;
  return first;
}
