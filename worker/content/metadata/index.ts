import type { CheerioAPI } from 'cheerio';
import { absoluteUrl } from '../document.js';
import { collapseWhitespace } from '../whitespace.js';
import { readArticleLd, type ArticleLd } from './article-ld.js';

/** The envelope's `metadata` (content_type is added by the envelope). docs/content.md gives each source. */
export interface PageMetadata {
  title: string | null;
  description: string | null;
  language: string | null;
  canonical: string | null;
  headline: string | null;
  byline: string | null;
  authors: string[];
  published: string | null;
  modified: string | null;
  site_name: string | null;
  image: string | null;
}

export function emptyMetadata(): PageMetadata {
  return {
    title: null, description: null, language: null, canonical: null, headline: null, byline: null,
    authors: [], published: null, modified: null, site_name: null, image: null,
  };
}

function clean(value: string | null | undefined): string | null {
  const text = value ? collapseWhitespace(value) : '';
  return text ? text : null;
}

function first(...values: Array<string | null | undefined>): string | null {
  for (const value of values) {
    const text = clean(value);
    if (text) return text;
  }
  return null;
}

/** ISO 8601: a bare date stays a date; anything Date can read becomes a UTC timestamp. */
export function isoDate(value: string | null): string | null {
  const text = clean(value);
  if (!text) return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  const time = Date.parse(text);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

function isUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

function pageAuthors($: CheerioAPI, meta: (key: string) => string | null, ld: ArticleLd | null): string[] {
  if (ld && ld.authors.length > 0) return ld.authors;
  const fromMeta = [meta('article:author'), meta('author'), meta('dc.creator'), meta('parsely-author')].filter(
    (name): name is string => name !== null && !isUrl(name),
  );
  if (fromMeta.length > 0) return [fromMeta[0]];
  const byline = $('[itemprop="author"] [itemprop="name"], [itemprop="author"], [rel="author"], .byline, .author').first().text();
  // "By Mara Quinn · 3 March 2024" names Mara Quinn.
  const fromPage = clean(byline.replace(/^\s*by\s+/i, '').split(/[·|•]/)[0]);
  return fromPage && fromPage.length <= 100 ? [fromPage] : [];
}

/**
 * Page and article metadata. Precedence per field: JSON-LD, then OpenGraph/Twitter, then other
 * meta tags, then the page itself (`<title>`, `h1`, `<time>`, `rel=author`).
 */
export function readMetadata($: CheerioAPI, baseUrl: string): PageMetadata {
  const metas = new Map<string, string>();
  $('meta[content]').each((_, element) => {
    if (element.type !== 'tag') return;
    const key = (element.attribs.property ?? element.attribs.name ?? element.attribs.itemprop ?? element.attribs['http-equiv'] ?? '').toLowerCase();
    if (key && !metas.has(key)) metas.set(key, element.attribs.content);
  });
  const meta = (key: string): string | null => clean(metas.get(key));
  const ld = readArticleLd($);
  const title = first($('head title').first().text(), $('title').first().text(), meta('og:title'));
  const authors = pageAuthors($, meta, ld);
  const url = (value: string | null): string | null => (value ? absoluteUrl(value, baseUrl) : null);
  return {
    title,
    description: first(meta('description'), meta('og:description'), ld?.description, meta('twitter:description')),
    language: first($('html').attr('lang'), meta('content-language'), ld?.language, meta('og:locale')),
    canonical: url(first($('link[rel~="canonical" i]').first().attr('href'), meta('og:url'), ld?.url)),
    headline: first(ld?.headline, meta('og:title'), meta('twitter:title'), $('h1').first().text(), title),
    byline: authors.length > 0 ? authors.join(', ') : null,
    authors,
    published: isoDate(
      first(ld?.published, meta('article:published_time'), meta('datepublished'), meta('date'), meta('pubdate'), meta('publish-date'),
        meta('dc.date.issued'), meta('dc.date'), $('time[datetime]').first().attr('datetime')),
    ),
    modified: isoDate(first(ld?.modified, meta('article:modified_time'), meta('og:updated_time'), meta('datemodified'), meta('last-modified'), meta('dcterms.modified'))),
    site_name: first(meta('og:site_name'), ld?.siteName, meta('application-name'), meta('twitter:site')),
    image: url(first(ld?.image, meta('og:image'), meta('og:image:url'), meta('twitter:image'), meta('twitter:image:src'))),
  };
}
