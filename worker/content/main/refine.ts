import { Element, type AnyNode } from 'domhandler';
import { headlineIndex, proseBegins, tailStart, teaserRuns } from './article-bounds.js';
import { detach, dropFurnitureLines } from './br-lines.js';
import { isDateLine } from './date-lines.js';
import { isBoxTitle, isCaption, isCell, isCreditLine, isDataCell, isLeadLabel, isToolLine, tailLabels } from './furniture-lines.js';
import { density, isProse, LONG_PARAGRAPH, MAX_LINK_DENSITY, paragraphs, type Paragraph } from './paragraphs.js';

const MAX_LONG_LINK_DENSITY = 0.5;
/** Between two prose paragraphs (long, few links), a paragraph is prose unless links are over this share of it. */
const MAX_CONTEXT_LINK_DENSITY = 0.7;

/**
 * jusText's link-density test, context-sensitive as its classification of short paragraphs is: a
 * long paragraph or one between two prose paragraphs is article text with inline links, up to a
 * higher share of links.
 */
function isLinkNoise(paragraph: Paragraph, previous: Paragraph | undefined, next: Paragraph | undefined): boolean {
  const share = density(paragraph);
  if (share <= MAX_LINK_DENSITY) return false;
  if (paragraph.text.length >= LONG_PARAGRAPH && share <= MAX_LONG_LINK_DENSITY) return false;
  return !(share <= MAX_CONTEXT_LINK_DENSITY && isProse(previous) && isProse(next));
}

/**
 * jusText's context-free "bad" paragraphs that survive in an article: copyright and rights lines,
 * page tools, pictures' captions, closing credits; and date lines outside data cells.
 */
function isNoise({ text, owner }: Paragraph): boolean {
  if (text.includes('\u00a9')) return true;
  if (isToolLine(text)) return true;
  if (isCaption(owner)) return true;
  if (isCreditLine(text)) return true;
  if (text.length < MAX_RIGHTS_LINE && RIGHTS.test(text)) return true;
  return !isDataCell(owner) && isDateLine(text);
}

/**
 * A short rights line ("Copyright 2008 The Associated Press. All rights reserved.", "This material may
 * not be published, broadcast, rewritten or redistributed."): page furniture, like the © line.
 */
const RIGHTS =
  /\bcopyright\b\W+(\w+\W+){0,6}\d{4}\b|\ball rights reserved\b|\(c\)\s*\d{4}|\bmay not be (re)?published, broadcast, rewritten,? or redistributed\b/i;
const MAX_RIGHTS_LINE = 150;
/** A clean-up that would take more than this share of the article's text is not applied: the page is a listing or a link hub. */
const MAX_DROPPED_SHARE = 0.5;

/** The table cell a block lies in (null outside tables). */
function cellOf(element: Element): Element | null {
  for (let node: Element | null = element; node; node = node.parent as Element | null) if (isCell(node)) return node;
  return null;
}

/**
 * After the last prose paragraph, a block in another table cell than that paragraph is another
 * column of the page's layout table (the site's box, a promotion), not the article's end; a cell
 * of a data table (a score card under a match report) stays.
 */
function inOtherCell(paragraph: Paragraph, last: Paragraph, dataTables: Map<Element, boolean>): boolean {
  const cell = cellOf(paragraph.owner);
  if (cell === cellOf(last.owner)) return false;
  if (!cell) return true;
  let data = dataTables.get(cell);
  if (data === undefined) dataTables.set(cell, (data = inDataTable(cell)));
  return !data;
}

/** A cell of a table some row of which holds several filled cells (a score card, a schedule). */
function inDataTable(cell: Element): boolean {
  const rows = cell.parent?.parent;
  if (!rows || !('children' in rows)) return false;
  return rows.children.some((row) => row.type === 'tag' && row.children.some((other) => other.type === 'tag' && isDataCell(other)));
}

/** A paragraph goes with its block when it is the whole of it, else by its own lines (text and <br>). */
function remove(list: Paragraph[]): void {
  for (const paragraph of list) {
    if (!paragraph.whole) {
      for (const node of paragraph.nodes) detach(node, paragraph.owner);
      continue;
    }
    const { owner } = paragraph;
    const parent = owner.parent as Element | null;
    if (parent) parent.children = parent.children.filter((child) => child !== owner);
  }
}

/**
 * Paragraph-level clean-up of the chosen article, in jusText's segmentation (block tags and double
 * <br> end a paragraph): a paragraph that is noise, stands before the headline, belongs to a teaser
 * list (teaserRuns) or comes from the article's terminating paragraph on (tailStart) goes: with its
 * block when it is the whole of it, else by its own lines (loose text beside other blocks, lines
 * parted from the rest of their block by a double <br>).
 */
export function dropNoiseParagraphs(nodes: AnyNode[], headline: string): AnyNode[] {
  const root = new Element('div', {}, nodes);
  for (const node of nodes) node.parent = root;
  const list = paragraphs(root);
  const start = headlineIndex(list, headline);
  const end = tailStart(list, start);
  const teasers = teaserRuns(list, proseBegins(list, start), end);
  const firstProse = list.findIndex((paragraph, i) => i > start && isProse(paragraph) && !isCaption(paragraph.owner));
  const lastProse = list.slice(0, end).findLastIndex((paragraph) => isProse(paragraph));
  const tail = lastProse >= start ? tailLabels(list, lastProse, end) : end;
  const dataTables = new Map<Element, boolean>();
  const noiseAt = new Set<number>();
  list.forEach((paragraph, i) => {
    if (
      i < end &&
      !teasers.has(i) &&
      paragraph.owner !== root &&
      (i < start ||
        (i > start && i < firstProse && (isLeadLabel(paragraph) || (i + 1 < firstProse && isBoxTitle(paragraph)))) ||
        i >= tail ||
        (i > lastProse && lastProse >= start && inOtherCell(paragraph, list[lastProse], dataTables)) ||
        (!paragraph.heading && (isNoise(paragraph) || isLinkNoise(paragraph, list[i - 1], list[i + 1]))))
    )
      noiseAt.add(i);
  });
  // What stands before the headline and after the terminating line goes whatever its share (comments
  // and columns of other headlines often outweigh the story); the noise rules within the article are
  // held back when they would take over half of its text.
  const before = list.filter((_, i) => i < start && noiseAt.has(i));
  const within = list.filter((_, i) => i >= start && noiseAt.has(i));
  const total = list.slice(start, end).reduce((sum, paragraph) => sum + paragraph.text.length, 0);
  const dropped = within.reduce((sum, paragraph) => sum + paragraph.text.length, 0);
  remove(before);
  remove(list.slice(end).filter((paragraph) => paragraph.owner !== root));
  remove(list.filter((paragraph, i) => teasers.has(i) && paragraph.owner !== root));
  if (dropped <= total * MAX_DROPPED_SHARE) remove(within);
  dropFurnitureLines(list, { start, end, firstProse, lastProse, headline }, (i) => !teasers.has(i) && !noiseAt.has(i));
  for (const child of root.children) child.parent = null;
  return root.children;
}
