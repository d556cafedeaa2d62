import type { CheerioAPI } from 'cheerio';
import { flatText } from '../document.js';
import { parseJsonSafely } from './json-text.js';

/** Every JSON-LD block's top-level objects, in document order (arrays flattened, `@graph` kept). */
export function readJsonLd($: CheerioAPI): unknown[] {
  const items: unknown[] = [];
  $('script[type="application/ld+json" i]').each((_, element) => {
    const value = parseJsonSafely(flatText(element));
    if (value === undefined) return;
    if (Array.isArray(value)) items.push(...value);
    else items.push(value);
  });
  return items;
}
