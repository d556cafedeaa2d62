import { descendantsNamed, linkDensity, textLength } from './dom.js';
import { FURNITURE_HEADING } from './patterns.js';

const BLOCKS = new Set(['ul', 'ol', 'dl', 'table', 'div', 'section', 'p', 'nav']);
const HEADINGS = new Set(['h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'b']);
const IMAGES = new Set(['img']);

/**
 * A block that is mostly links and little prose is a link list (related stories, tags, paging),
 * as in trafilatura's and boilerpipe's link-density tests.
 */
function isLinkList(element: Element): boolean {
  const text = textLength(element);
  if (text === 0) return false;
  const density = linkDensity(element);
  if (element.localName === 'p') return density > 0.9 && text < 80;
  return density > 0.6 || (density > 0.4 && text < 200);
}

/** A short heading-like block announcing boilerplate ("Related articles", "Share this"). */
function isFurnitureHeading(element: Element): boolean {
  const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim();
  return text.length < 60 && FURNITURE_HEADING.test(text);
}

/** Below this declared size (pixels) an image is an icon, a spacer or a button. */
const ICON_SIZE = 100;

/** Icons, spacers and linked teaser images: not the article's pictures. */
function isDecorative(image: Element): boolean {
  const size = (name: string): number => Number.parseInt(image.getAttribute(name) ?? '', 10);
  if (size('width') < ICON_SIZE || size('height') < ICON_SIZE) return true;
  for (let node = image.parentElement; node; node = node.parentElement) if (node.localName.toLowerCase() === 'a') return true;
  return false;
}

/** Removes link lists and announced boilerplate blocks left inside the chosen article. */
export function cleanArticle(article: Element): void {
  for (const element of descendantsNamed(article, BLOCKS)) {
    if (element.isConnected && isLinkList(element)) element.remove();
  }
  for (const heading of descendantsNamed(article, HEADINGS)) {
    if (!heading.isConnected || !isFurnitureHeading(heading)) continue;
    const next = heading.nextElementSibling;
    if (next && (next.localName === 'ul' || next.localName === 'ol') && linkDensity(next) > 0.3) next.remove();
    heading.remove();
  }
  for (const image of descendantsNamed(article, IMAGES)) if (isDecorative(image)) image.remove();
}
