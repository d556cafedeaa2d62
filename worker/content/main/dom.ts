import { parseHTML } from 'linkedom';

/** Builds a standard DOM (linkedom) of a page from its head and body markup. */
export function parsePage(headHtml: string, bodyHtml: string): Document {
  const { document } = parseHTML(`<!DOCTYPE html><html><head>${headHtml}</head><body>${bodyHtml}</body></html>`);
  return document as unknown as Document;
}

/** Whitespace-collapsed text length of an element. */
export function textLength(node: Node): number {
  return (node.textContent ?? '').replace(/\s+/g, ' ').trim().length;
}

/** Share of an element's text that sits inside links (0 when it has no text). */
export function linkDensity(element: Element): number {
  const total = textLength(element);
  if (total === 0) return 0;
  let linked = 0;
  for (const link of Array.from(element.querySelectorAll('a'))) linked += textLength(link);
  return Math.min(1, linked / total);
}

export function markerOf(element: Element): string {
  return `${element.getAttribute('id') ?? ''} ${element.getAttribute('class') ?? ''}`.trim();
}
