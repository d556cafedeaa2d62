import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, ParentNode } from 'domhandler';
import { selectMainContent } from './main/index.js';

/**
 * The outermost body, or the document root for fragments without one and for pages whose markup
 * opens several bodies side by side or one inside noscript (script fallbacks of old pages): there the
 * page's text lies outside that body.
 */
export function contentRoot($: CheerioAPI): Cheerio<AnyNode> {
  const body: Cheerio<AnyNode> = $('body').filter((_, element) => $(element).parents('body').length === 0);
  return body.length === 1 && body.closest('noscript, head').length === 0 ? body : $.root();
}

/** Never content in any textual output. */
const NEVER_CONTENT = 'script, style, noscript, template, link, meta, base, object, embed, canvas, iframe, frame, frameset, dialog';

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
  $(NEVER_CONTENT).remove();
  $('svg').remove();
}

/** What Readability needs of the head: the title, meta tags and JSON-LD (scripts and styles are dead weight). */
function headEssentials($: CheerioAPI): string {
  return $('head title, head meta, script[type="application/ld+json"]')
    .toArray()
    .map((element) => $.html(element))
    .join('');
}

/**
 * The article's headline: the page's first h1 when the title Readability found names it (titles
 * carry the site's name beside it), else that title.
 */
function headlineOf($: CheerioAPI): (title: string) => string {
  const h1 = $('h1').first().text().replace(/\s+/g, ' ').trim();
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
export function keepMainContent($: CheerioAPI): void {
  const body = contentRoot($);
  const headline = headlineOf($);
  const { nodes } = selectMainContent(body[0] as ParentNode, headEssentials($), headline);
  body.empty();
  body.append(nodes);
}
