import { Element, type AnyNode } from 'domhandler';
import { tailStart } from './article-bounds.js';
import { detach } from './br-lines.js';
import { isCaption, isCreditLine, isToolLine, tailLabels } from './furniture-lines.js';
import { isProse, paragraphs, type Paragraph } from './paragraphs.js';

/**
 * jusText's context-free "bad" paragraphs that survive in an article: copyright and rights lines,
 * page tools, pictures' captions, closing credits.
 */
function isNoise({ text, owner }: Paragraph): boolean {
  if (text.includes('\u00a9')) return true;
  if (isToolLine(text)) return true;
  if (isCaption(owner)) return true;
  if (isCreditLine(text)) return true;
  return text.length < MAX_RIGHTS_LINE && RIGHTS.test(text);
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
 * <br> end a paragraph): a paragraph that is noise, or comes from the article's terminating paragraph
 * on (tailStart), or is one of the labels that close the article (tailLabels) goes: with its block
 * when it is the whole of it, else by its own lines (loose text beside other blocks, lines parted
 * from the rest of their block by a double <br>). What the pick holds before its headline, bylines,
 * dates, link-heavy paragraphs and teaser lists stay: on pages of other shapes than news those rules
 * cut the reader's text (docs/content.md, "Which rules are kept").
 */
export function dropNoiseParagraphs(nodes: AnyNode[]): AnyNode[] {
  const root = new Element('div', {}, nodes);
  for (const node of nodes) node.parent = root;
  const list = paragraphs(root);
  const end = tailStart(list);
  const lastProse = list.slice(0, end).findLastIndex((paragraph) => isProse(paragraph));
  const tail = lastProse >= 0 ? tailLabels(list, lastProse, end) : end;
  const noise = list.filter((paragraph, i) => i < end && paragraph.owner !== root && (i >= tail || (!paragraph.heading && (isNoise(paragraph)))));
  // What follows the terminating line goes whatever its share (comments often outweigh the story);
  // the noise rules are held back when they would take over half of the article's text.
  const total = list.slice(0, end).reduce((sum, paragraph) => sum + paragraph.text.length, 0);
  const dropped = noise.reduce((sum, paragraph) => sum + paragraph.text.length, 0);
  remove(list.slice(end).filter((paragraph) => paragraph.owner !== root));
  if (dropped <= total * MAX_DROPPED_SHARE) remove(noise);
  for (const child of root.children) child.parent = null;
  return root.children;
}
