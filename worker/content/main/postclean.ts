import type { AnyNode, Element } from 'domhandler';
import { findElements } from '../walk.js';

/** Below this declared size (pixels) an image is an icon, a spacer or a button. */
const ICON_SIZE = 100;

/** Icons, spacers and linked teaser images: not the article's pictures. */
function isDecorative(image: Element): boolean {
  const size = (name: string): number => Number.parseInt(image.attribs[name] ?? '', 10);
  if (size('width') < ICON_SIZE || size('height') < ICON_SIZE) return true;
  for (let node = image.parent; node && node.type === 'tag'; node = node.parent) if ((node as Element).name === 'a') return true;
  return false;
}

function detach(node: AnyNode): void {
  const parent = node.parent;
  if (!parent) return;
  parent.children.splice(parent.children.indexOf(node as never), 1);
  if (node.prev) node.prev.next = node.next;
  if (node.next) node.next.prev = node.prev;
  node.parent = node.prev = node.next = null;
}

/**
 * Removes the icons, spacers and linked teaser pictures left inside the chosen article. (Until
 * issue 31 this module also held link-list and "Related ..." heading rules; they never ran, the
 * pick they were given being outside the document, and switched on they cut link hubs: see
 * docs/history/content-main.md.)
 */
export function removeDecorativeImages(article: Element): void {
  for (const image of findElements(article, (found) => found.name === 'img')) if (isDecorative(image)) detach(image);
}
