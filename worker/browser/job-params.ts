import type { ScrapeJob } from '../../lib/protocol/index.js';
import type { ScrapeParams } from '../../lib/scrape/types.js';

/** What the engine reads when a field is missing (the gateway normally sends every field). */
const RENDER_DEFAULTS: ScrapeParams = {
  url: '',
  method: 'GET',
  js_render: true,
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

/**
 * The job's parameters with defaults under them. The gateway validated and normalised them
 * already (ScrapeJob.params is typed loosely only because it crosses the bus as JSON).
 */
export function renderParams(job: ScrapeJob): ScrapeParams {
  const merged: Record<string, unknown> = { ...RENDER_DEFAULTS };
  for (const [key, value] of Object.entries(job.params)) if (value !== undefined) merged[key] = value;
  return merged as unknown as ScrapeParams;
}
