import { RENDER_ENGINES } from '../protocol/engines.js';
import type { ScrapeInput } from './fields.js';
import { incompatible } from './issues.js';
import type { ScrapeParams } from './types.js';

/** Project-level stored defaults (SPEC.md rows marked "project default"), already normalised. */
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

const ENVELOPE_FLAGS = ['autoparse', 'links', 'extract', 'extract_preset', 'ai_extract', 'screenshot', 'network_capture'] as const;

function isOn(value: unknown): boolean {
  return value !== null && value !== undefined && value !== false;
}

/** SPEC.md "requires", "exclusive with" and "cannot combine" rules: 400 ERR::REQUEST::INCOMPATIBLE_FLAGS. */
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

/** Checked, merged input -> the normalised parameters every later stage trusts. */
export function normalise(input: ScrapeInput, url: string): ScrapeParams {
  return {
    url,
    method: input.method ?? 'GET',
    js_render: input.js_render ?? false,
    stealth: input.stealth ?? false,
    impersonate: input.impersonate ?? true,
    mode: input.mode ?? null,
    engine: input.engine ?? null,
    premium_proxy: input.premium_proxy ?? false,
    proxy_country: input.proxy_country ?? null,
    proxy: input.proxy ?? null,
    proxy_verify: input.proxy_verify ?? false,
    session_id: input.session_id ?? null,
    sticky_key: input.sticky_key ?? null,
    wait: input.wait ?? 0,
    wait_for: input.wait_for ?? null,
    wait_for_timeout: input.wait_for_timeout ?? 0,
    actions: input.actions && input.actions.length > 0 ? input.actions : null,
    block_resources: input.block_resources ?? null,
    headless: input.headless ?? null,
    screenshot: input.screenshot ?? false,
    screenshot_fullpage: input.screenshot_fullpage ?? false,
    screenshot_selector: input.screenshot_selector ?? null,
    screenshot_format: input.screenshot_format ?? 'png',
    screenshot_quality: input.screenshot_quality ?? 0,
    custom_headers: input.custom_headers ?? {},
    network_capture: input.network_capture ?? null,
    autoparse: input.autoparse ?? false,
    links: input.links ?? false,
    extract: input.extract ?? null,
    extract_preset: input.extract_preset ?? null,
    ai_extract: input.ai_extract ?? null,
    main_content_only: input.main_content_only ?? null,
    include_tags: input.include_tags ?? [],
    exclude_tags: input.exclude_tags ?? [],
    response_format: input.response_format ?? 'html',
    max_cost: input.max_cost ?? null,
    cache: input.cache ?? true,
    cache_ttl: input.cache_ttl ?? null,
    original_status: input.original_status ?? false,
    allowed_status_codes: [...new Set(input.allowed_status_codes ?? [])].sort((a, b) => a - b),
  };
}
