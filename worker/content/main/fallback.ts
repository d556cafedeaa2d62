import type { AnyNode, Element, ParentNode } from 'domhandler';
import { scan, trimmed, trimmedLength } from './pick/text-span.js';

const TEXT_BLOCKS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'pre', 'blockquote', 'li', 'dd', 'dt', 'td', 'th', 'figcaption']);
/** A block of the baseline must be prose: at most this share of its text in links. */
const MAX_LINK_SHARE = 0.5;

function isElement(node: AnyNode): node is Element {
  return node.type === 'tag';
}

/** Characters of text, and of text inside links, under `root`. */
function textAndLinks(root: Element): { chars: number; linked: number } {
  let chars = 0;
  let linked = 0;
  const stack: Array<[AnyNode, boolean]> = [[root, false]];
  while (stack.length > 0) {
    const [node, inLink] = stack.pop() as [AnyNode, boolean];
    if (node.type === 'text') {
      const length = trimmed(scan(node.data));
      chars += length;
      if (inLink) linked += length;
    } else if (isElement(node)) {
      for (const child of node.children) stack.push([child, inLink || node.name === 'a']);
    }
  }
  return { chars, linked };
}

/** Text straight inside a container (not wrapped in p) is a block of its own, as in jusText. */
function holdsLooseText(element: Element): boolean {
  return element.children.some((child) => child.type === 'text' && trimmedLength(child.data) >= 20);
}

/** A table without tables inside is data, kept whole; a table holding tables is page layout. */
function isDataTable(element: Element): boolean {
  if (element.name !== 'table') return false;
  const stack: AnyNode[] = [...element.children];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!isElement(node)) continue;
    if (node.name === 'table') return false;
    stack.push(...node.children);
  }
  return true;
}

function isProse(block: Element): boolean {
  const { chars, linked } = textAndLinks(block);
  if (chars === 0) return false;
  // Headings of teasers are links and still content on a home page or listing.
  if (/^h\d$/.test(block.name)) return true;
  return linked / chars <= MAX_LINK_SHARE && (chars >= 20 || linked === 0);
}

/**
 * The jusText/trafilatura-style baseline when the scorer picks nothing or too little: every text
 * block of the cleaned page whose text is prose rather than links, outermost first, in page order.
 */
export function proseBlocks(body: ParentNode): Element[] {
  const kept: Element[] = [];
  const visit = (node: ParentNode): void => {
    for (const child of node.children) {
      if (!isElement(child)) continue;
      const block = TEXT_BLOCKS.has(child.name) || isDataTable(child) || holdsLooseText(child);
      if (block && isProse(child)) kept.push(child);
      else visit(child);
    }
  };
  visit(body);
  return kept;
}
