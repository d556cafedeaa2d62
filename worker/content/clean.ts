import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Document, Element, ParentNode } from 'domhandler';
import { flatText } from './document.js';
import { headlineSource } from './main/headline.js';
import { selectMainContent } from './main/index.js';
import { findElements, removeElements, replaceChildren } from './walk.js';

/**
 * The outermost body, or the document root for fragments without one and for pages whose markup
 * opens several bodies side by side or one inside noscript (script fallbacks of old pages): there the
 * page's text lies outside that body.
 */
export function contentRoot(document: Document): ParentNode {
  const bodies = findElements(document, (element) => element.name === 'body', (element) => element.name !== 'body');
  if (bodies.length !== 1) return document;
  for (let node = bodies[0].parent; node; node = node.parent) {
    if (node.type === 'tag' && (node.name === 'noscript' || node.name === 'head')) return document;
  }
  return bodies[0];
}

/** Never content in any textual output. */
const NEVER_CONTENT = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'base', 'object', 'embed', 'canvas', 'iframe', 'frame', 'frameset', 'dialog', 'svg']);

/** Keep only the subtrees matching `selectors` (outermost matches, document order). */
export function keepOnly($: CheerioAPI, selectors: string[]): void {
  const matches = $(selectors.join(', ')).filter((_, element) => $(element).parents(selectors.join(', ')).length === 0);
  const kept = matches.toArray();
  const body = $(contentRoot($.root()[0] as Document));
  body.empty();
  for (const element of kept) body.append(element);
}

export function removeMatching($: CheerioAPI, selectors: string[]): void {
  if (selectors.length > 0) $(selectors.join(', ')).remove();
}

export function removeNeverContent(document: Document): void {
  removeElements(document, (element) => NEVER_CONTENT.has(element.name));
}

/** What the scoring needs of the head: the title and meta tags. */
function headEssentials(document: Document): AnyNode[] {
  const inHead = (element: Element): boolean => {
    for (let node = element.parent; node; node = node.parent) if (node.type === 'tag' && node.name === 'head') return true;
    return false;
  };
  return findElements(document, (element) => (element.name === 'title' || element.name === 'meta') && inHead(element));
}

/**
 * main_content_only: the article (or, on other pages, the prose) chosen by ./main/, in place of the
 * body. docs/content.md says how it is chosen.
 */
export function keepMainContent(document: Document): void {
  const body = contentRoot(document);
  const headlines = headlineSource(document);
  const { nodes } = selectMainContent(body, headEssentials(document), headlines);
  replaceChildren(body, nodes);
}
