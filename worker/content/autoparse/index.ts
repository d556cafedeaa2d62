import type { CheerioAPI } from 'cheerio';
import { readEmbeddedState } from './embedded-state.js';
import { readJsonLd } from './json-ld.js';
import { readMetaTags } from './meta-tags.js';
import { readMicrodata } from './microdata.js';
import { readRdfa } from './rdfa.js';

/** The keys autoparse fills in `data`; each is always present (empty when the page has none). */
export const AUTOPARSE_KEYS = ['json_ld', 'opengraph', 'twitter', 'microdata', 'rdfa', 'meta', 'embedded'] as const;

/** Harvests every structured-data source of the page. Malformed blocks are skipped, never fatal. */
export function runAutoparse($: CheerioAPI): Record<(typeof AUTOPARSE_KEYS)[number], unknown> {
  const tags = readMetaTags($);
  return {
    json_ld: readJsonLd($),
    opengraph: tags.opengraph,
    twitter: tags.twitter,
    microdata: readMicrodata($),
    rdfa: readRdfa($),
    meta: tags.meta,
    embedded: readEmbeddedState($),
  };
}
