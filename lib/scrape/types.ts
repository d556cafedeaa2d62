import type { EngineName } from '../protocol/engines.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const RESPONSE_FORMATS = ['html', 'markdown', 'text', 'pdf', 'json'] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

export const RESOURCE_CLASSES = [
  'document',
  'stylesheet',
  'image',
  'media',
  'font',
  'script',
  'xhr',
  'fetch',
  'websocket',
  'other',
] as const;
export type ResourceClass = (typeof RESOURCE_CLASSES)[number];

export const SCREENSHOT_FORMATS = ['png', 'jpeg', 'webp'] as const;
export type ScreenshotFormat = (typeof SCREENSHOT_FORMATS)[number];

/**
 * Scrape parameters after validation and normalisation (defaults applied, enums lower-cased,
 * aliases folded). This is what crosses the bus in `ScrapeJob.params`.
 */
export interface ScrapeParams {
  url: string;
  method: HttpMethod;
  js_render: boolean;
  stealth: boolean;
  impersonate: boolean;
  mode: 'auto' | null;
  engine: EngineName | null;
  premium_proxy: boolean;
  proxy_country: string | null;
  proxy: string | null;
  proxy_verify: boolean;
  session_id: string | null;
  sticky_key: string | null;
  wait: number;
  wait_for: string | null;
  wait_for_timeout: number;
  actions: unknown[] | null;
  /** Null when omitted: the engine applies the default (block image and font, with exceptions). */
  block_resources: ResourceClass[] | null;
  headless: boolean | null;
  screenshot: boolean;
  screenshot_fullpage: boolean;
  screenshot_selector: string | null;
  screenshot_format: ScreenshotFormat;
  screenshot_quality: number;
  custom_headers: Record<string, string>;
  network_capture: Record<string, unknown> | null;
  autoparse: boolean;
  links: boolean;
  extract: Record<string, unknown> | null;
  extract_preset: string | null;
  ai_extract: Record<string, unknown> | null;
  main_content_only: boolean | null;
  include_tags: string[];
  exclude_tags: string[];
  response_format: ResponseFormat;
  max_cost: number | null;
  cache: boolean;
  cache_ttl: number | null;
  original_status: boolean;
  allowed_status_codes: number[];
}

/** The engines a request may run on, in order (lib/scrape/engine-selection.ts plans it). */
export interface EnginePlan {
  /** One rung unless mode=auto (['fetch', 'obscura'], or ['obscura'] when a browser-only flag is set). */
  rungs: EngineName[];
  /** Bot-challenge rules 3 and 6: a still-challenged page may climb to camoufox. */
  climbToCamoufox: boolean;
}
