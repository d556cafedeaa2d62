import type { CheerioAPI } from 'cheerio';
import { absoluteUrl } from './document.js';

/**
 * Absolute http(s) anchor targets in document order, fragment removed, each once; same-page `#...`
 * anchors are skipped. Resolved against
 * `<base href>` (the document was already absolutised the same way).
 */
export function collectLinks($: CheerioAPI, baseUrl: string): string[] {
  const seen = new Set<string>();
  $('a[href], area[href]').each((_, element) => {
    if (element.attribs.href.trim().startsWith('#')) return;
    const absolute = absoluteUrl(element.attribs.href, baseUrl);
    if (!absolute) return;
    const url = new URL(absolute);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
    url.hash = '';
    seen.add(url.href);
  });
  return [...seen];
}
