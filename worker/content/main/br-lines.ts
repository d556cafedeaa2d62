import type { AnyNode, Element } from 'domhandler';
import type { Paragraph } from './paragraphs.js';
import { collapseWhitespace } from '../whitespace.js';

/* The lines of one paragraph parted by single <br> ("Staff and agencies<br>30 December, 2007<br>The story..."). */

/** The text before a paragraph's first single <br> ("Related Articles<br>..."): a box's title; all its text when it has none. */
export function firstLine(paragraph: Paragraph): string {
  let text = '';
  for (const node of paragraph.nodes) {
    if (node.type !== 'text') break;
    text += node.data;
  }
  return collapseWhitespace(text);
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
