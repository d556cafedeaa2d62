import type { ScrapeParams } from './params-schema.js';

/**
 * Every scrape parameter at its default: what an omitted field means (docs/parameters.md). A fresh
 * object each call, so no caller can share (or change) another's arrays and maps.
 */
export function defaultScrapeParams(): ScrapeParams {
  return {
    url: '',
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
  };
}
