import { readFileSync } from 'node:fs';
import type { ScrapeParams } from '../../lib/scrape/types.js';
import type { ContentInput } from '../../worker/content/pipeline.js';

export function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/pages/${name}`, import.meta.url), 'utf8');
}

export function params(overrides: Partial<ScrapeParams> = {}): ScrapeParams {
  return {
    url: 'https://example.com/page',
    method: 'GET',
    js_render: false,
    stealth: false,
    impersonate: true,
    mode: null,
    engine: null,
    premium_proxy: false,
    proxy_country: null,
    proxy: null,
    proxy_verify: false,
    session_id: null,
    sticky_key: null,
    wait: 0,
    wait_for: null,
    wait_for_timeout: 0,
    actions: null,
    block_resources: null,
    headless: null,
    screenshot: false,
    screenshot_fullpage: false,
    screenshot_selector: null,
    screenshot_format: 'png',
    screenshot_quality: 0,
    custom_headers: {},
    network_capture: null,
    autoparse: false,
    links: false,
    extract: null,
    extract_preset: null,
    ai_extract: null,
    main_content_only: null,
    include_tags: [],
    exclude_tags: [],
    response_format: 'html',
    max_cost: null,
    cache: true,
    cache_ttl: null,
    original_status: false,
    allowed_status_codes: [],
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
