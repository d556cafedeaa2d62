import type { AnyNode, Element, ParentNode } from 'domhandler';
import { HEADINGS } from './pick/box.js';
import { collapseWhitespace } from '../whitespace.js';
import { scan, trimmed } from './pick/text-span.js';

/** Tags that start a paragraph of their own (jusText's PARAGRAPH_TAGS). */
const PARAGRAPH_TAGS = new Set([
  'body', 'blockquote', 'caption', 'center', 'col', 'colgroup', 'dd', 'div', 'dl', 'dt', 'fieldset', 'form', 'legend',
  'optgroup', 'option', 'p', 'pre', 'table', 'td', 'textarea', 'tfoot', 'th', 'thead', 'tr', 'ul', 'ol', 'li',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'section', 'article', 'main', 'header', 'footer', 'figure', 'figcaption', 'address',
]);
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'select', 'option']);

export interface Paragraph {
  text: string;
  linked: number;
  /** Characters of link text the paragraph opens with (a teaser opens with its linked headline). */
  leadLinked: number;
  heading: boolean;
  /** The innermost paragraph-starting element around the text. */
  owner: Element;
  /** The text is all the owner holds (no other paragraph shares it or lies inside it). */
  whole: boolean;
  /** Its text nodes and the single <br> elements between them, in document order (its br-separated lines). */
  nodes: AnyNode[];
}

/** Splits a subtree into jusText paragraphs: block tags and double <br> end one. */
export function paragraphs(root: ParentNode & Element): Paragraph[] {
  const found: Paragraph[] = [];
  // The paragraph being read: its text so far (null before its first part), and its nodes, the
  // first `nodeCount` of `nodes` (each paragraph takes an exact-size copy: one array serves them all).
  let text: string | null = null;
  const nodes: AnyNode[] = [];
  let nodeCount = 0;
  let linked = 0;
  let leadLinked = 0;
  let leading = true;
  let heading = false;
  let owner = root;
  let breaks = 0;
  const flush = (): void => {
    if (text !== null) {
      const collapsed = collapseWhitespace(text);
      const length = collapsed.length;
      if (length > 0) found.push({ text: collapsed, linked: Math.min(linked, length), leadLinked: Math.min(leadLinked, length), heading, owner, whole: false, nodes: nodes.slice(0, nodeCount) });
      text = null;
      nodeCount = 0;
    }
    linked = 0;
    leadLinked = 0;
    leading = true;
    heading = false;
    breaks = 0;
  };
  const visit = (node: AnyNode, inLink: boolean, inHeading: boolean): void => {
    if (node.type === 'text') {
      const length = trimmed(scan(node.data));
      if (length > 0) breaks = 0;
      text = (text ?? '') + node.data;
      nodes[nodeCount] = node;
      nodeCount += 1;
      if (inLink) linked += length;
      if (length > 0 && leading && inLink) leadLinked += length;
      else if (length > 0) leading = false;
      heading ||= inHeading && length > 0;
      return;
    }
    if (node.type !== 'tag') return;
    const element = node;
    if (SKIPPED.has(element.name)) return;
    if (element.name === 'br') {
      leading = false;
      breaks += 1;
      if (breaks >= 2) flush();
      else {
        text = (text ?? '') + ' ';
        nodes[nodeCount] = element;
        nodeCount += 1;
      }
      return;
    }
    const block = PARAGRAPH_TAGS.has(element.name);
    const outer = owner;
    if (block) {
      flush();
      owner = element;
    }
    const isHeading = inHeading || HEADINGS.has(element.name);
    for (const child of element.children) visit(child, inLink || element.name === 'a', isHeading);
    if (block) {
      flush();
      owner = outer;
    } else if (element.name === 'img' && element.attribs.alt) text = (text ?? '') + ' ';
  };
  for (const child of root.children) visit(child, false, false);
  flush();
  const perOwner = new Map<Element, number>();
  for (const paragraph of found) perOwner.set(paragraph.owner, (perOwner.get(paragraph.owner) ?? 0) + 1);
  const holdsOthers = new Set<AnyNode>();
  for (const paragraph of found) {
    for (let node = paragraph.owner.parent; node && !holdsOthers.has(node); node = node.parent) holdsOthers.add(node);
  }
  for (const paragraph of found) paragraph.whole = perOwner.get(paragraph.owner) === 1 && !holdsOthers.has(paragraph.owner);
  return found;
}

/** jusText's link-density limit: a paragraph with more of its text in links is navigation. */
export const MAX_LINK_DENSITY = 0.2;
/** A paragraph this long (characters) is a sentence with links in it unless links are over half its text. */
export const LONG_PARAGRAPH = 100;

/** The share of a paragraph's text in links. */
export function density({ text, linked }: Paragraph): number {
  return linked / text.length;
}

/** A prose paragraph: long, with few links. */
export function isProse(paragraph: Paragraph | undefined): boolean {
  return paragraph !== undefined && paragraph.text.length >= LONG_PARAGRAPH && density(paragraph) <= MAX_LINK_DENSITY;
}
