import { descendantsNamed, holdsNamed } from './dom.js';
import { TERMINATING_BLOCK } from './patterns.js';

const BLOCK_TAGS = new Set(['p', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'td', 'th', 'dd', 'dt', 'div', 'section', 'figcaption', 'table', 'ul', 'ol', 'dl', 'tr']);
/** Code, tables, figures and the items of lists and tables are judged as a whole (postclean), never one by one. */
const KEEP_TAGS = new Set(['pre', 'table', 'figure', 'img', 'li', 'td', 'th', 'dt', 'dd', 'tr']);

const NESTED_BLOCKS = new Set(['p', 'div', 'li', 'td', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const LINKS = new Set(['a']);
const WHOLE_CONTENT = new Set(['img', 'pre', 'table']);

/** Trimming that would keep less than this share of the words is not applied. */
const MIN_KEPT_SHARE = 0.5;

interface Block {
  element: Element;
  words: number;
  linkDensity: number;
  text: string;
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => /\w/.test(word)).length;
}

/** Leaf text blocks: block elements holding no other block element, in document order. */
function textBlocks(root: Element): Block[] {
  const blocks: Block[] = [];
  const visit = (element: Element): void => {
    const children = Array.from(element.children);
    const nested = children.some((child) => BLOCK_TAGS.has(child.localName) || holdsNamed(child, NESTED_BLOCKS));
    if (!nested && element !== root) {
      const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim();
      if (text === '') return;
      let linked = 0;
      for (const link of descendantsNamed(element, LINKS)) linked += (link.textContent ?? '').replace(/\s+/g, ' ').trim().length;
      blocks.push({ element, text, words: wordCount(text), linkDensity: Math.min(1, linked / text.length) });
      return;
    }
    for (const child of children) visit(child);
  };
  visit(root);
  return blocks;
}

/**
 * boilerpipe's shallow-text decision tree (Kohlschütter et al., WSDM 2010): a block is content or
 * boilerplate by its own and its neighbours' word counts and link densities.
 */
function isBoilerplate(previous: Block | undefined, current: Block, next: Block | undefined): boolean {
  const prevWords = previous?.words ?? 0;
  const nextWords = next?.words ?? 0;
  const prevDensity = previous?.linkDensity ?? 0;
  if (current.linkDensity > 0.333333) return true;
  if (prevDensity <= 0.555556) {
    if (current.words > 16) return false;
    if (nextWords > 15) return false;
    return prevWords <= 4;
  }
  if (current.words > 40) return false;
  return nextWords <= 17;
}

function removable(block: Block): boolean {
  return !KEEP_TAGS.has(block.element.localName) && !holdsNamed(block.element, WHOLE_CONTENT) && !/^h\d$/.test(block.element.localName);
}

/**
 * Block-level clean-up of the chosen article: from a terminating block on ("Comments",
 * "Related stories", "© 2024") everything goes; boilerplate blocks are trimmed from both ends;
 * inside, a short block that is mostly links goes.
 */
export function trimBlocks(article: Element): void {
  const blocks = textBlocks(article);
  const totalWords = blocks.reduce((sum, block) => sum + block.words, 0);
  let seen = 0;
  let end = blocks.length;
  for (let i = 0; i < blocks.length; i += 1) {
    const block = blocks[i];
    if (seen > totalWords * 0.25 && block.text.length < 120 && TERMINATING_BLOCK.test(block.text)) {
      end = i;
      break;
    }
    seen += block.words;
  }
  const boiler = blocks.map((block, i) => i >= end || isBoilerplate(blocks[i - 1], block, blocks[i + 1]));
  let first = 0;
  while (first < end && boiler[first]) first += 1;
  let last = end - 1;
  while (last > first && boiler[last]) last -= 1;
  const keptWords = blocks.slice(first, last + 1).reduce((sum, block) => sum + block.words, 0);
  // A pick whose blocks are mostly "boilerplate" is a listing (teasers, search results), not an article.
  if (keptWords < totalWords * MIN_KEPT_SHARE) return;
  blocks.forEach((block, i) => {
    const outside = i < first || i > last;
    const linkNoise = boiler[i] && block.linkDensity > 0.333333 && block.words <= 40;
    if ((outside || linkNoise) && removable(block)) block.element.remove();
  });
}
