import type { CheerioAPI } from 'cheerio';
import { absoluteUrl } from './document.js';

export interface PageMetadata {
  title: string | null;
  description: string | null;
  language: string | null;
  canonical: string | null;
}

function clean(value: string | undefined): string | null {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text ? text : null;
}

export function readMetadata($: CheerioAPI, baseUrl: string): PageMetadata {
  const meta = (selector: string): string | undefined => $(selector).first().attr('content');
  return {
    title: clean($('head title').first().text()) ?? clean($('title').first().text()) ?? clean(meta('meta[property="og:title"]')),
    description: clean(meta('meta[name="description" i]')) ?? clean(meta('meta[property="og:description"]')),
    language: clean($('html').attr('lang')) ?? clean(meta('meta[http-equiv="content-language" i]')),
    canonical: absoluteUrl($('link[rel~="canonical" i]').first().attr('href'), baseUrl),
  };
}
