import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element, ParentNode } from 'domhandler';
import { flatText } from './document.js';
import type { AttributeSet } from './main/dom.js';
import { headlineSource } from './main/headline.js';
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
 * main_content_only: the article (or, on other pages, the prose) chosen by ./main/, in place of the
 * body. docs/content.md says how it is chosen.
 */
export function keepMainContent($: CheerioAPI, attributes: AttributeSet): void {
  const body = contentRoot($);
  const headlines = headlineSource($.root()[0]);
  const { nodes } = selectMainContent(body[0] as ParentNode, headEssentials($), headlines, attributes);
  body.empty();
  body.append(nodes);
}
