import type { CheerioAPI } from 'cheerio';
import { readJsonLd } from '../autoparse/json-ld.js';

const ARTICLE_TYPES = /^(Article|NewsArticle|BlogPosting|Report|ScholarlyArticle|TechArticle|AnalysisNewsArticle|OpinionNewsArticle|ReportageNewsArticle|LiveBlogPosting|SocialMediaPosting|DiscussionForumPosting|WebPage|ItemPage|Product|Recipe|VideoObject)$/;

type Item = Record<string, unknown>;

function isItem(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function types(item: Item): string[] {
  const type = item['@type'];
  return (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === 'string');
}

/** Every object of the page's JSON-LD, `@graph` members included. */
function items($: CheerioAPI): Item[] {
  const out: Item[] = [];
  for (const value of readJsonLd($)) {
    if (!isItem(value)) continue;
    out.push(value);
    const graph = value['@graph'];
    if (Array.isArray(graph)) out.push(...graph.filter(isItem));
  }
  return out;
}

/** A string, or the `name`/`url` of an object, or the first of a list. */
export function textOf(value: unknown, key: 'name' | 'url' = 'name'): string | null {
  if (typeof value === 'string') return value.trim() || null;
  if (Array.isArray(value)) return value.length > 0 ? textOf(value[0], key) : null;
  if (isItem(value)) return textOf(value[key], key);
  return null;
}

/** Names of the author field: a string, an object with `name`, or a list of either. */
export function namesOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((entry) => textOf(entry)).filter((name): name is string => name !== null);
}

export interface ArticleLd {
  headline: string | null;
  authors: string[];
  published: string | null;
  modified: string | null;
  siteName: string | null;
  description: string | null;
  image: string | null;
  language: string | null;
  url: string | null;
}

/**
 * The page's article as JSON-LD describes it: the first object of an article-like type (articles
 * before web pages), with the WebSite's name as the site name when the publisher gives none.
 */
export function readArticleLd($: CheerioAPI): ArticleLd | null {
  const all = items($);
  const ranked = all.filter((item) => types(item).some((type) => ARTICLE_TYPES.test(type)));
  ranked.sort((a, b) => Number(types(a).includes('WebPage')) - Number(types(b).includes('WebPage')));
  const item = ranked[0];
  if (!item) return null;
  const website = all.find((entry) => types(entry).includes('WebSite'));
  return {
    headline: textOf(item.headline) ?? textOf(item.name),
    authors: namesOf(item.author ?? item.creator),
    published: textOf(item.datePublished) ?? textOf(item.dateCreated),
    modified: textOf(item.dateModified),
    siteName: textOf(item.publisher) ?? (website ? textOf(website.name) : null),
    description: textOf(item.description),
    image: textOf(item.image, 'url') ?? textOf(item.thumbnailUrl, 'url'),
    language: textOf(item.inLanguage),
    url: textOf(item.mainEntityOfPage, 'url') ?? textOf(item.url, 'url'),
  };
}
