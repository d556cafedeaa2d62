import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element, ParentNode } from 'domhandler';
import { flatText } from './document.js';
import type { AttributeSet } from './main/dom.js';
import { selectMainContent } from './main/index.js';
import { findElements, removeElements } from './walk.js';

/**
 * The outermost body, or the document root for fragments without one and for pages whose markup
 * opens several bodies side by side or one inside noscript (script fallbacks of old pages): there the
 * page's text lies outside that body.
 */
export function contentRoot($: CheerioAPI): Cheerio<AnyNode> {
  const bodies = findElements($.root()[0], (element) => element.name === 'body', (element) => element.name !== 'body');
  if (bodies.length !== 1) return $.root();
  for (let node = bodies[0].parent; node; node = node.parent) {
    if (node.type === 'tag' && (node.name === 'noscript' || node.name === 'head')) return $.root();
  }
  return $(bodies[0]);
}

/** Never content in any textual output. */
const NEVER_CONTENT = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'base', 'object', 'embed', 'canvas', 'iframe', 'frame', 'frameset', 'dialog', 'svg']);

/** Keep only the subtrees matching `selectors` (outermost matches, document order). */
export function keepOnly($: CheerioAPI, selectors: string[]): void {
  const matches = $(selectors.join(', ')).filter((_, element) => $(element).parents(selectors.join(', ')).length === 0);
  const kept = matches.toArray();
  const body = contentRoot($);
  body.empty();
  for (const element of kept) body.append(element);
}

export function removeMatching($: CheerioAPI, selectors: string[]): void {
  if (selectors.length > 0) $(selectors.join(', ')).remove();
}

export function removeNeverContent($: CheerioAPI): void {
  removeElements($.root()[0], (element) => NEVER_CONTENT.has(element.name));
}

/** What Readability needs of the head: the title and meta tags (it is told not to read JSON-LD). */
function headEssentials($: CheerioAPI): AnyNode[] {
  const inHead = (element: Element): boolean => {
    for (let node = element.parent; node; node = node.parent) if (node.type === 'tag' && node.name === 'head') return true;
    return false;
  };
  return findElements($.root()[0], (element) => (element.name === 'title' || element.name === 'meta') && inHead(element));
}

/**
 * The article's headline: the page's first h1 when the title Readability found names it (titles
 * carry the site's name beside it), else that title.
 */
function headlineOf($: CheerioAPI): (title: string) => string {
  const [first] = findElements($.root()[0], (element) => element.name === 'h1', undefined, 1);
  const h1 = (first ? flatText(first) : '').replace(/\s+/g, ' ').trim();
  const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return (title) => {
    const titleWords = new Set(words(title));
    const h1Words = words(h1);
    const named = h1Words.length > 0 && (h1Words.every((word) => titleWords.has(word)) || h1.includes(title));
    return named ? h1 : title;
  };
}

/**
 * main_content_only: the article (or, on other pages, the prose) chosen by ./main/, in place of the
 * body. docs/content.md says how it is chosen.
 */
export function keepMainContent($: CheerioAPI, attributes: AttributeSet): void {
  const body = contentRoot($);
  const headline = headlineOf($);
  const { nodes } = selectMainContent(body[0] as ParentNode, headEssentials($), headline, attributes);
  body.empty();
  body.append(nodes);
}
