import { QUERY_ENCODING } from './fields.js';

/**
 * Names people bring from other scraping APIs (ScrapingBee, ZenRows, Firecrawl, ScraperAPI...) and
 * what this API calls them, for the "did you mean" of an unknown parameter (docs/parameters.md).
 */
const FROM_OTHER_APIS: Record<string, string> = {
  render_js: 'js_render',
  render: 'js_render',
  js: 'js_render',
  javascript: 'js_render',
  formats: 'response_format',
  format: 'response_format',
  output_format: 'response_format',
  json_response: 'response_format=json',
  premium: 'premium_proxy',
  premium_proxies: 'premium_proxy',
  residential: 'premium_proxy',
  country: 'proxy_country',
  country_code: 'proxy_country',
  geo: 'proxy_country',
  stealth_proxy: 'stealth',
  wait_for_selector: 'wait_for',
  waitfor: 'wait_for',
  full_page: 'screenshot_fullpage',
  screenshot_full_page: 'screenshot_fullpage',
  headers: 'custom_headers',
  forward_headers: 'custom_headers',
  extract_rules: 'extract',
  css_extractor: 'extract',
  only_main_content: 'main_content_only',
  onlymaincontent: 'main_content_only',
  includetags: 'include_tags',
  excludetags: 'exclude_tags',
  block_ads: 'block_resources',
  session_number: 'session_id',
};

const KEY_NAMES = new Set(['api_key', 'apikey', 'key', 'x-api-key', 'token']);
const FIELD_NAMES = Object.keys(QUERY_ENCODING);

/** " (did you mean js_render?)" for an unknown parameter name, or "" when nothing is close. */
export function didYouMean(name: string): string {
  const folded = name.toLowerCase().replace(/-/g, '_');
  if (KEY_NAMES.has(folded)) return ' (the API key is not a parameter: send it as Authorization: Bearer <API_KEY>)';
  const alias = FROM_OTHER_APIS[folded] ?? FROM_OTHER_APIS[folded.replace(/_/g, '')];
  if (alias) return ` (did you mean ${alias}?)`;
  if (FIELD_NAMES.includes(folded)) return ` (did you mean ${folded}? names are lower-case with underscores)`;
  const close = FIELD_NAMES.map((field) => ({ field, distance: editDistance(folded, field) })).sort((a, b) => a.distance - b.distance)[0];
  return close && close.distance <= 2 ? ` (did you mean ${close.field}?)` : '';
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}
