import { readFileSync } from 'node:fs';
import { defaultScrapeParams } from '../../lib/scrape/defaults.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import type { ContentInput } from '../../worker/content/pipeline.js';

export function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/pages/${name}`, import.meta.url), 'utf8');
}

export function params(overrides: Partial<ScrapeParams> = {}): ScrapeParams {
  return {
    ...defaultScrapeParams(),
    url: 'https://example.com/page',
    ...overrides,
  };
}

/** An HTML page as an engine hands it over. */
export function htmlInput(html: string, finalUrl: string, overrides: Partial<ScrapeParams> = {}): ContentInput {
  return {
    page: { finalUrl, status: 200, mediaType: 'text/html', text: html },
    params: params({ url: finalUrl, ...overrides }),
    extras: {},
    engine: 'fetch',
  };
}
