import { gunzipSync } from 'node:zlib';
import * as cheerio from 'cheerio';

export interface SitemapDocument {
  /** Page URLs (`<urlset><url><loc>`). */
  pages: string[];
  /** Child sitemaps (`<sitemapindex><sitemap><loc>`). */
  sitemaps: string[];
}

/** A sitemap file, gzipped or not (by its magic bytes, whatever the name or Content-Type says). */
export function parseSitemap(bytes: Buffer): SitemapDocument {
  const text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes, { maxOutputLength: MAX_SITEMAP_BYTES }) : bytes).toString('utf8');
  const $ = cheerio.load(text, { xml: true });
  const locs = (selector: string) => $(selector).map((_, element) => $(element).text().trim()).get().filter((loc) => loc !== '');
  return { pages: locs('urlset > url > loc'), sitemaps: locs('sitemapindex > sitemap > loc') };
}

/** The sitemap protocol's own ceiling for one file, uncompressed. */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;
