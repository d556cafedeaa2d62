import type { AnyNode, Element } from 'domhandler';
import { isDateLine } from './date-lines.js';
import { isDataCell, isLeadLabel, isTailLabel, isToolLine } from './furniture-lines.js';
import type { Paragraph } from './paragraphs.js';

/* The lines of one paragraph parted by single <br> ("Staff and agencies<br>30 December, 2007<br>The story..."). */

interface Line {
  text: string;
  /** Its text nodes and the <br> that ends it. */
  nodes: AnyNode[];
}

function linesOf(paragraph: Paragraph): Line[] {
  const lines: Line[] = [{ text: '', nodes: [] }];
  for (const node of paragraph.nodes) {
    const line = lines[lines.length - 1];
    line.nodes.push(node);
    if (node.type === 'text') line.text += node.data;
    else lines.push({ text: '', nodes: [] });
  }
  return lines.map((line) => ({ ...line, text: line.text.replace(/\s+/g, ' ').trim() })).filter((line) => line.nodes.length > 0);
}

/** The text before a paragraph's first single <br> ("Related Articles<br>..."): a box's title; all its text when it has none. */
export function firstLine(paragraph: Paragraph): string {
  return linesOf(paragraph)[0]?.text ?? '';
}

/** Takes a node out, and the inline elements (a, font, b...) that held only it, up to the paragraph's own block. */
export function detach(node: AnyNode, owner: Element): void {
  let current: AnyNode = node;
  for (;;) {
    const parent = current.parent as Element | null;
    if (!parent) return;
    parent.children = parent.children.filter((child) => child !== current);
    current.parent = null;
    if (parent === owner || parent.children.length > 0) return;
    current = parent;
  }
}

/** The line tested as a paragraph of its own in the paragraph's block. */
function asParagraph(paragraph: Paragraph, text: string): Paragraph {
  return { ...paragraph, text };
}

function isHeadline(line: Line, headline: string): boolean {
  return line.text.toLowerCase() === headline.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** An empty line, a page-tool line, a label or a date line: furniture at the article's start. */
function isLeadLine(paragraph: Paragraph, line: Line): boolean {
  if (line.text === '' || isToolLine(line.text) || isLeadLabel(asParagraph(paragraph, line.text))) return true;
  return isDateLine(line.text) && !isDataCell(paragraph.owner);
}

/**
 * Removes the br-separated lines that open a paragraph while they are labels, page tools or dates (a
 * byline, dateline or credit glued to the first paragraph, or to the headline, by a single <br>);
 * passes over the headline's own line and stops at the first other line. A paragraph that is the
 * whole of its block keeps its last line (one that is all labels is for the paragraph rules) unless
 * it opens with the headline, which stays; one that shares its block (parted by double <br>) may
 * lose all its lines.
 */
function dropLeadLines(paragraph: Paragraph, headline: string): void {
  const lines = linesOf(paragraph);
  const opensWithHeadline = lines.length > 0 && isHeadline(lines[0], headline);
  let dropped = 0;
  for (const line of paragraph.whole && !opensWithHeadline ? lines.slice(0, -1) : lines) {
    if (isHeadline(line, headline)) continue;
    if (!isLeadLine(paragraph, line)) break;
    for (const node of line.nodes) detach(node, paragraph.owner);
    dropped += 1;
  }
  // The headline left alone in its paragraph would end with the <br> that parted it from the lines gone.
  const closing = lines[0]?.nodes.at(-1);
  if (opensWithHeadline && dropped === lines.length - 1 && closing && closing.type === 'tag') detach(closing, paragraph.owner);
}

/** A section name or box title has no digits; a line with one is a list written with <br> (results, times, an address). */
function isTailLine(paragraph: Paragraph, line: Line): boolean {
  if (line.text === '' || isToolLine(line.text)) return true;
  return !/\d/.test(line.text) && isTailLabel(asParagraph(paragraph, line.text));
}

/** The same at the article's end: the paragraph's closing lines while they are section names or page tools. */
function dropTailLines(paragraph: Paragraph): void {
  const lines = linesOf(paragraph);
  let last = lines.length - 1;
  while (last > 0 && isTailLine(paragraph, lines[last])) last -= 1;
  if (last === lines.length - 1) return;
  // The kept line's own closing <br> would now end the paragraph with an empty line.
  const closing = lines[last].nodes.at(-1);
  if (closing && closing.type === 'tag') detach(closing, paragraph.owner);
  for (const line of lines.slice(last + 1)) for (const node of line.nodes) detach(node, paragraph.owner);
}

export interface ArticleBounds {
  /** Index of the headline's paragraph, of the first and last prose paragraphs, and of the terminating paragraph. */
  start: number;
  firstProse: number;
  lastProse: number;
  end: number;
  headline: string;
}

/**
 * Line by line inside the paragraphs the paragraph rules keep: the labels, page tools and dates that
 * open the article's first paragraphs (from the headline's own paragraph to the first prose paragraph;
 * only when there is a headline to start from) and those that close its last ones (from the last prose paragraph on).
 */
export function dropFurnitureLines(list: Paragraph[], bounds: ArticleBounds, kept: (index: number) => boolean): void {
  const { start, end, firstProse, lastProse, headline } = bounds;
  if (headline !== '') for (let i = start; i <= firstProse && i < end; i += 1) if (kept(i)) dropLeadLines(list[i], headline);
  if (lastProse > start) for (let i = lastProse; i < end; i += 1) if (kept(i)) dropTailLines(list[i]);
}
