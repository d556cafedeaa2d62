import type { CheerioAPI } from 'cheerio';

export type TagMap = Record<string, string | string[]>;

function add(map: TagMap, key: string, value: string): void {
  const existing = map[key];
  if (existing === undefined) map[key] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else map[key] = [existing, value];
}

const OPENGRAPH_NAMESPACES = /^(og|article|book|profile|product|music|video|fb|al):/i;

export interface MetaTags {
  opengraph: TagMap;
  twitter: TagMap;
  meta: TagMap;
}

/**
 * OpenGraph (`og:` prefix dropped; `article:`, `product:`... kept whole), Twitter cards (`twitter:`
 * dropped) and every other named meta tag. A key seen twice becomes an array in page order.
 */
export function readMetaTags($: CheerioAPI): MetaTags {
  const tags: MetaTags = { opengraph: {}, twitter: {}, meta: {} };
  $('meta[content]').each((_, element) => {
    if (element.type !== 'tag') return;
    const content = element.attribs.content.trim();
    const property = (element.attribs.property ?? '').trim();
    // Other `property` values are RDFa statements about an item, reported under `rdfa`.
    const social = /^twitter:/i.test(property) || OPENGRAPH_NAMESPACES.test(property);
    const key = social ? property : (element.attribs.name ?? '').trim();
    if (key === '') {
      const httpEquiv = element.attribs['http-equiv'];
      if (httpEquiv) add(tags.meta, `http-equiv:${httpEquiv.toLowerCase()}`, content);
      return;
    }
    const lower = key.toLowerCase();
    if (lower.startsWith('twitter:')) add(tags.twitter, lower.slice('twitter:'.length), content);
    else if (OPENGRAPH_NAMESPACES.test(lower)) add(tags.opengraph, lower.replace(/^og:/, ''), content);
    else add(tags.meta, lower, content);
  });
  return tags;
}
