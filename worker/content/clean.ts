import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';

/** body, or the document root for fragments without one. */
export function contentRoot($: CheerioAPI): Cheerio<AnyNode> {
  const body: Cheerio<AnyNode> = $('body');
  return body.length > 0 ? body : $.root();
}
import { flatText } from './document.js';

/** Never content in any textual output. */
const NEVER_CONTENT = 'script, style, noscript, template, link, meta, base, object, embed, canvas, iframe, frame, frameset, dialog';

/** Page furniture dropped by main_content_only. header/footer inside an article or main belong to it. */
const BOILERPLATE = [
  'nav', 'aside', 'menu', '[role="navigation"]', '[role="banner"]', '[role="contentinfo"]', '[role="complementary"]',
  '[role="search"]', '[role="dialog"]', '[role="alertdialog"]', '[aria-hidden="true"]', '[hidden]',
  'form[role="search"]', 'button', 'select', 'input', 'textarea', 'label',
].join(', ');

const BOILERPLATE_WORDS =
  /(^|[-_\s])(cookie|cookies|consent|gdpr|cmp|banner|ads?|advert|advertisement|adsbygoogle|sponsor|sponsored|promo|newsletter|subscribe|social|share|sharing|breadcrumbs?|skip-link|sidebar|popup|modal|related|comments?)($|[-_\s])/i;
/** A wrapper holding these is layout, not furniture, whatever its class says. */
const CONTENT_MARKERS = 'main, article, [role="main"], h1';
const HIDDEN_STYLE = /(^|;)\s*(display\s*:\s*none|visibility\s*:\s*hidden)/i;

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

function isFurniture(element: Element): boolean {
  const marker = `${element.attribs.id ?? ''} ${element.attribs.class ?? ''}`;
  if (element.name === 'body' || element.name === 'html' || element.name === 'main' || element.name === 'article') return false;
  if (HIDDEN_STYLE.test(element.attribs.style ?? '')) return true;
  return marker.trim() !== '' && BOILERPLATE_WORDS.test(marker);
}

function textLength(element: AnyNode): number {
  return flatText(element).replace(/\s+/g, ' ').trim().length;
}

/** The element holding the page's main content: the largest `main`, else the largest `article`, else body. */
function mainRoot($: CheerioAPI): Cheerio<AnyNode> | null {
  for (const selector of ['main, [role="main"]', 'article, [itemprop="articleBody"]']) {
    const candidates = $(selector).toArray() as AnyNode[];
    if (candidates.length === 0) continue;
    const best = candidates.reduce((a, b) => (textLength(b) > textLength(a) ? b : a));
    if (textLength(best) > 0) return $(best);
  }
  return null;
}

/** main_content_only: strip navigation, header, footer, aside, cookie banners, ads; narrow to main/article. */
export function keepMainContent($: CheerioAPI): void {
  $(BOILERPLATE).remove();
  $('header, footer').filter((_, element) => $(element).closest('article, main, [role="main"]').length === 0).remove();
  $('*')
    .filter((_, element) => element.type === 'tag' && isFurniture(element) && $(element).find(CONTENT_MARKERS).length === 0)
    .remove();
  const root = mainRoot($);
  if (!root) return;
  const body = contentRoot($);
  const title = $('h1').first();
  const keepTitle = title.length > 0 && root.find(title).length === 0 && textLength(title[0]) > 0;
  body.empty();
  if (keepTitle) body.append(title);
  body.append(root);
}
