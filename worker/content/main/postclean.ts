import type { Element } from 'domhandler';
import { removeElements } from '../walk.js';

/** Below this declared size (pixels) an image is an icon, a spacer or a button. */
const ICON_SIZE = 100;

/** Icons, spacers and linked teaser images: not the article's pictures. */
function isDecorative(image: Element): boolean {
  const size = (name: string): number => Number.parseInt(image.attribs[name] ?? '', 10);
  if (size('width') < ICON_SIZE || size('height') < ICON_SIZE) return true;
  for (let node = image.parent; node && node.type === 'tag'; node = node.parent) if ((node as Element).name === 'a') return true;
  return false;
}

/**
 * Removes the icons, spacers and linked teaser pictures left inside the chosen article. (Until
 * issue 31 this module also held link-list and "Related ..." heading rules; they never ran, the
 * pick they were given being outside the document, and switched on they cut link hubs: see
 * docs/history/content-main.md.)
 */
export function removeDecorativeImages(article: Element): void {
  removeElements(article, (element) => element.name === 'img' && isDecorative(element));
}
