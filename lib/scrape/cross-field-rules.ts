import { RENDER_ENGINES } from '../protocol/engines.js';
import type { Actions } from './actions-schema.js';
import type { NetworkCapture } from './network-capture-schema.js';
import type { ScrapeInput } from './fields.js';
import { incompatible } from './issues.js';
import { defaultScrapeParams } from './defaults.js';
import type { ScrapeParams } from './params-schema.js';

/** Project-level stored defaults (docs/parameters.md, "project default"), already normalised. */
export type ProjectDefaults = Partial<
  Pick<
    ScrapeParams,
    | 'js_render'
    | 'stealth'
    | 'impersonate'
    | 'mode'
    | 'engine'
    | 'premium_proxy'
    | 'proxy_country'
    | 'block_resources'
    | 'custom_headers'
    | 'links'
    | 'main_content_only'
  >
>;

const isSet = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;

/**
 * Fill omitted fields from the project's defaults. A value the caller sent, `false` included, always
 * wins. Defaults that would turn a valid request into a contradiction are not applied (see
 * docs/parameters.md "Project defaults").
 */
export function applyProjectDefaults(input: ScrapeInput, defaults: ProjectDefaults): ScrapeInput {
  // Most projects store none: every later reader takes an absent field and a null one alike, so the input serves as it is.
  if (!hasAnyDefault(defaults)) return input;
  const merged: ScrapeInput = { ...input };
  const callerChoseEngine = [input.js_render, input.stealth, input.mode, input.engine].some(isSet);
  if (!callerChoseEngine && !isSet(input.session_id)) {
    merged.js_render = defaults.js_render;
    merged.stealth = defaults.stealth;
    merged.mode = defaults.mode;
    merged.engine = defaults.engine;
  }
  merged.impersonate ??= defaults.impersonate;
  if (!isSet(input.proxy)) {
    merged.premium_proxy ??= defaults.premium_proxy;
    if (merged.premium_proxy === true) merged.proxy_country ??= defaults.proxy_country;
  }
  const rendersForSure =
    merged.js_render === true || merged.stealth === true || (isSet(merged.engine) && RENDER_ENGINES.includes(merged.engine));
  if (rendersForSure && !isSet(merged.mode) && !isSet(input.session_id)) {
    merged.block_resources ??= defaults.block_resources ?? undefined;
  }
  merged.custom_headers ??= defaults.custom_headers;
  if (merged.response_format !== 'pdf') merged.links ??= defaults.links;
  merged.main_content_only ??= defaults.main_content_only ?? undefined;
  return merged;
}

function hasAnyDefault(defaults: ProjectDefaults): boolean {
  for (const value of Object.values(defaults)) if (isSet(value)) return true;
  return false;
}

const ENVELOPE_FLAGS = ['autoparse', 'links', 'extract', 'extract_preset', 'ai_extract', 'screenshot', 'network_capture'] as const;

function isOn(value: unknown): boolean {
  return value !== null && value !== undefined && value !== false;
}

/** The "requires", "exclusive with" and "cannot combine" rules of docs/parameters.md: 400 ERR::REQUEST::INCOMPATIBLE_FLAGS. */
export function checkFlagRules(input: ScrapeInput): void {
  if (input.mode === 'auto') {
    if (input.js_render === true) throw incompatible('mode=auto cannot be combined with js_render=true');
    if (input.stealth === true) throw incompatible('mode=auto cannot be combined with stealth=true');
    if (isSet(input.engine)) throw incompatible('mode=auto cannot be combined with engine (a pin disables escalation)');
    if (isSet(input.session_id)) throw incompatible('mode=auto cannot be combined with session_id (the session pins its engine)');
  }
  if (input.stealth === true && isSet(input.engine) && input.engine !== 'camoufox') {
    throw incompatible(`stealth=true selects camoufox and cannot be combined with engine=${input.engine}`);
  }
  if (input.js_render === true && input.engine === 'fetch') {
    throw incompatible('js_render=true cannot be combined with engine=fetch');
  }
  if (input.proxy_verify === true && !isSet(input.proxy)) throw incompatible('proxy_verify requires proxy');
  if (isSet(input.proxy_country) && input.premium_proxy !== true && !isSet(input.proxy)) {
    throw incompatible('proxy_country requires premium_proxy=true');
  }
  if (isSet(input.sticky_key) && isSet(input.proxy)) {
    throw incompatible('sticky_key forces a managed pool exit and cannot be combined with proxy');
  }
  if ((input.wait_for_timeout ?? 0) > 0 && !isSet(input.wait_for)) throw incompatible('wait_for_timeout requires wait_for');
  if (input.screenshot !== true) {
    if (input.screenshot_fullpage === true) throw incompatible('screenshot_fullpage requires screenshot=true');
    if (isSet(input.screenshot_selector)) throw incompatible('screenshot_selector requires screenshot=true');
    if ((input.screenshot_quality ?? 0) > 0) throw incompatible('screenshot_quality above 0 requires screenshot=true');
  }
  if (input.screenshot_fullpage === true && isSet(input.screenshot_selector)) {
    throw incompatible('screenshot_fullpage and screenshot_selector are exclusive');
  }
  if (input.cache === false && (input.cache_ttl ?? 0) > 0) throw incompatible('cache=false cannot be combined with cache_ttl above 0');
  if (isSet(input.extract) && isSet(input.extract_preset)) throw incompatible('extract and extract_preset are exclusive');
  if (input.response_format === 'pdf') {
    const clash = ENVELOPE_FLAGS.find((flag) => isOn(input[flag]));
    if (clash) throw incompatible(`response_format=pdf cannot be combined with ${clash} (it needs the JSON envelope)`);
  }
}

/** The structured parameters of an input, parsed by their own schemas (lib/scrape/params.ts). */
export interface StructuredParameters {
  actions: Actions | null;
  network_capture: NetworkCapture | null;
}

/** Checked, merged input and its parsed structured parameters -> the normalised parameters every later stage trusts. */
export function normalise(input: ScrapeInput, structured: StructuredParameters, url: string): ScrapeParams {
  const d = defaultScrapeParams();
  return {
    url,
    method: input.method ?? d.method,
    js_render: input.js_render ?? d.js_render,
    stealth: input.stealth ?? d.stealth,
    impersonate: input.impersonate ?? d.impersonate,
    mode: input.mode ?? d.mode,
    engine: input.engine ?? d.engine,
    premium_proxy: input.premium_proxy ?? d.premium_proxy,
    proxy_country: input.proxy_country ?? d.proxy_country,
    proxy: input.proxy ?? d.proxy,
    proxy_verify: input.proxy_verify ?? d.proxy_verify,
    session_id: input.session_id ?? d.session_id,
    sticky_key: input.sticky_key ?? d.sticky_key,
    wait: input.wait ?? d.wait,
    wait_for: input.wait_for ?? d.wait_for,
    wait_for_timeout: input.wait_for_timeout ?? d.wait_for_timeout,
    actions: structured.actions && structured.actions.length > 0 ? structured.actions : null,
    block_resources: input.block_resources ?? d.block_resources,
    headless: input.headless ?? d.headless,
    screenshot: input.screenshot ?? d.screenshot,
    screenshot_fullpage: input.screenshot_fullpage ?? d.screenshot_fullpage,
    screenshot_selector: input.screenshot_selector ?? d.screenshot_selector,
    screenshot_format: input.screenshot_format ?? d.screenshot_format,
    screenshot_quality: input.screenshot_quality ?? d.screenshot_quality,
    custom_headers: input.custom_headers ?? d.custom_headers,
    network_capture: structured.network_capture ?? d.network_capture,
    autoparse: input.autoparse ?? d.autoparse,
    links: input.links ?? d.links,
    extract: input.extract ?? d.extract,
    extract_preset: input.extract_preset ?? d.extract_preset,
    ai_extract: input.ai_extract ?? d.ai_extract,
    main_content_only: input.main_content_only ?? d.main_content_only,
    include_tags: input.include_tags ?? d.include_tags,
    exclude_tags: input.exclude_tags ?? d.exclude_tags,
    response_format: input.response_format ?? d.response_format,
    max_cost: input.max_cost ?? d.max_cost,
    cache: input.cache ?? d.cache,
    cache_ttl: input.cache_ttl ?? d.cache_ttl,
    original_status: input.original_status ?? d.original_status,
    allowed_status_codes: [...new Set(input.allowed_status_codes ?? d.allowed_status_codes)].sort((a, b) => a - b),
  };
}
