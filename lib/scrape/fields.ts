import { z } from 'zod';
import { selectorProblem } from '../extract/selectors.js';
import { storableString } from '../validation/storable.js';
import { AiExtractSchema } from './ai-extract-schema.js';
import { HTTP_METHODS, RESPONSE_FORMATS, SCREENSHOT_FORMATS, type ResourceClass, type ScreenshotFormat } from './vocabulary.js';

/** Bounds for parameters (documented in docs/parameters.md). */
export const URL_MAX_CHARS = 8192;
export const WAIT_MAX_MS = 60_000;
export const WAIT_FOR_TIMEOUT_MAX_MS = 120_000;
export const CACHE_TTL_MAX_SECONDS = 604_800;
export const MAX_COST_MAX_CREDITS = 1_000_000;
export const SELECTOR_MAX_CHARS = 1024;
export const SELECTOR_LIST_MAX = 100;
export const STRING_ID_MAX_CHARS = 256;
export const HEADER_VALUE_MAX_CHARS = 8192;

export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

const BLOCK_RESOURCE_ALIASES: Record<string, ResourceClass | 'none'> = {
  none: 'none',
  document: 'document',
  documents: 'document',
  stylesheet: 'stylesheet',
  stylesheets: 'stylesheet',
  css: 'stylesheet',
  image: 'image',
  images: 'image',
  media: 'media',
  font: 'font',
  fonts: 'font',
  script: 'script',
  scripts: 'script',
  js: 'script',
  xhr: 'xhr',
  fetch: 'fetch',
  websocket: 'websocket',
  websockets: 'websocket',
  other: 'other',
};

const SCREENSHOT_FORMAT_ALIASES: Record<string, ScreenshotFormat> = { jpg: 'jpeg' };

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 field-value: visible ASCII, space, tab and obs-text (bytes 0x80-0xFF); no other control character. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

function lowerEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return storableString()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(values, { error: () => `must be one of ${values.join(', ')} (case-insensitive)` }));
}

export const selectorField = storableString().trim().min(1, 'must be a non-empty CSS selector').max(SELECTOR_MAX_CHARS);
/** include_tags/exclude_tags are matched by the content pipeline, so they get its bounds and syntax check. */
const pipelineSelector = selectorField.superRefine((value, ctx) => {
  const problem = selectorProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
export const selectorListField = z.array(pipelineSelector).max(SELECTOR_LIST_MAX);
export const plainObjectField = z.record(storableString(), z.unknown());

export const methodField = storableString()
  .transform((value) => value.toUpperCase())
  .pipe(z.enum(HTTP_METHODS, { error: () => `must be one of ${HTTP_METHODS.join(', ')} (case-insensitive)` }));

export const engineField = lowerEnum(['fetch', 'obscura', 'chromium', 'camoufox']);
export const modeField = lowerEnum(['auto']);
export const responseFormatField = lowerEnum(RESPONSE_FORMATS);

export const blockResourcesField = z
  .array(storableString())
  .transform((values, ctx): ResourceClass[] => {
    const classes = new Set<ResourceClass | 'none'>();
    values.forEach((raw, index) => {
      const folded = BLOCK_RESOURCE_ALIASES[raw.trim().toLowerCase()];
      if (folded === undefined) {
        ctx.addIssue({ code: 'custom', path: [index], message: `unknown resource class "${raw}"` });
      } else {
        classes.add(folded);
      }
    });
    if (classes.has('none') && classes.size > 1) {
      ctx.addIssue({ code: 'custom', message: '"none" cannot be combined with other classes' });
    }
    classes.delete('none');
    return [...classes].filter((value): value is ResourceClass => value !== 'none');
  });

/** Unrecognised strings fall back to the engine default (png), docs/parameters.md. */
export const screenshotFormatField = storableString().transform((value): ScreenshotFormat => {
  const lower = value.trim().toLowerCase();
  const folded = SCREENSHOT_FORMAT_ALIASES[lower] ?? lower;
  return (SCREENSHOT_FORMATS as readonly string[]).includes(folded) ? (folded as ScreenshotFormat) : 'png';
});

export const proxyCountryField = storableString()
  .transform((value) => value.trim().toUpperCase())
  .refine((code) => /^[A-Z]{2}$/.test(code) && code !== 'ZZ' && regionNames.of(code) !== undefined, {
    message: 'must be an ISO 3166-1 alpha-2 country code',
  });

export const customHeadersField = z.record(storableString(), storableString().max(HEADER_VALUE_MAX_CHARS)).superRefine((headers, ctx) => {
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'not a valid header name' });
    } else if (HOP_BY_HOP_HEADERS.has(lower)) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'hop-by-hop header not allowed' });
    } else if (seen.has(lower)) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'header given twice (names are case-insensitive)' });
    } else if (!FIELD_VALUE.test(value)) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'header value may hold visible ASCII, spaces, tabs and characters U+0080-U+00FF only (no control characters)' });
    }
    seen.add(lower);
  }
});

const statusCode = z.number().int().min(100).max(599);
export const statusCodesField = z.array(statusCode).max(500);
export const urlField = storableString().max(URL_MAX_CHARS, `must be at most ${URL_MAX_CHARS} characters`);
export const proxyField = storableString().min(1).max(2048);
export const stringIdField = storableString().max(STRING_ID_MAX_CHARS);
export const stickyKeyField = storableString().min(1).max(STRING_ID_MAX_CHARS);
export const waitField = z.number().int().min(0).max(WAIT_MAX_MS);
export const waitForTimeoutField = z.number().int().min(0).max(WAIT_FOR_TIMEOUT_MAX_MS);
export const screenshotQualityField = z.number().int().min(0).max(100);
export const maxCostField = z.number().int().min(1).max(MAX_COST_MAX_CREDITS);
export const cacheTtlField = z.number().int().min(0).max(CACHE_TTL_MAX_SECONDS);

/**
 * The wire shape of the scrape parameters as a caller sends them (before defaults and cross-field
 * rules). `null` is accepted for every optional field and means "omitted".
 */
export const ScrapeInputSchema = z.strictObject({
  url: urlField.nullish(),
  method: methodField.nullish(),
  js_render: z.boolean().nullish(),
  stealth: z.boolean().nullish(),
  impersonate: z.boolean().nullish(),
  mode: modeField.nullish(),
  engine: engineField.nullish(),
  premium_proxy: z.boolean().nullish(),
  proxy_country: proxyCountryField.nullish(),
  proxy: proxyField.nullish(),
  proxy_verify: z.boolean().nullish(),
  session_id: storableString().nullish(),
  sticky_key: stickyKeyField.nullish(),
  wait: waitField.nullish(),
  wait_for: selectorField.nullish(),
  wait_for_timeout: waitForTimeoutField.nullish(),
  actions: z.array(z.unknown()).nullish(),
  block_resources: blockResourcesField.nullish(),
  headless: z.boolean().nullish(),
  screenshot: z.boolean().nullish(),
  screenshot_fullpage: z.boolean().nullish(),
  screenshot_selector: selectorField.nullish(),
  screenshot_format: screenshotFormatField.nullish(),
  screenshot_quality: screenshotQualityField.nullish(),
  custom_headers: customHeadersField.nullish(),
  network_capture: plainObjectField.nullish(),
  autoparse: z.boolean().nullish(),
  links: z.boolean().nullish(),
  extract: plainObjectField.nullish(),
  extract_preset: stringIdField.nullish(),
  ai_extract: AiExtractSchema.nullish(),
  main_content_only: z.boolean().nullish(),
  include_tags: selectorListField.nullish(),
  exclude_tags: selectorListField.nullish(),
  response_format: responseFormatField.nullish(),
  max_cost: maxCostField.nullish(),
  cache: z.boolean().nullish(),
  cache_ttl: cacheTtlField.nullish(),
  original_status: z.boolean().nullish(),
  allowed_status_codes: statusCodesField.nullish(),
});
export type ScrapeInput = z.infer<typeof ScrapeInputSchema>;
export type ScrapeFieldName = keyof typeof ScrapeInputSchema.shape;

/** How each parameter is spelled in a GET query string (docs/parameters.md; the API reference's `scrapeGet`). */
export type QueryEncoding = 'string' | 'integer' | 'boolean' | 'list' | 'integer-list' | 'json';

export const QUERY_ENCODING: Record<ScrapeFieldName, QueryEncoding> = {
  url: 'string',
  method: 'string',
  js_render: 'boolean',
  stealth: 'boolean',
  impersonate: 'boolean',
  mode: 'string',
  engine: 'string',
  premium_proxy: 'boolean',
  proxy_country: 'string',
  proxy: 'string',
  proxy_verify: 'boolean',
  session_id: 'string',
  sticky_key: 'string',
  wait: 'integer',
  wait_for: 'string',
  wait_for_timeout: 'integer',
  actions: 'json',
  block_resources: 'list',
  headless: 'boolean',
  screenshot: 'boolean',
  screenshot_fullpage: 'boolean',
  screenshot_selector: 'string',
  screenshot_format: 'string',
  screenshot_quality: 'integer',
  custom_headers: 'json',
  network_capture: 'json',
  autoparse: 'boolean',
  links: 'boolean',
  extract: 'json',
  extract_preset: 'string',
  ai_extract: 'json',
  main_content_only: 'boolean',
  include_tags: 'list',
  exclude_tags: 'list',
  response_format: 'string',
  max_cost: 'integer',
  cache: 'boolean',
  cache_ttl: 'integer',
  original_status: 'boolean',
  allowed_status_codes: 'integer-list',
};
