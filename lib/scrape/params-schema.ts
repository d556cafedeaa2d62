import { z } from 'zod';
import { storableString } from '../validation/storable.js';
import { ActionsSchema } from './actions-schema.js';
import { AiExtractSchema } from './ai-extract-schema.js';
import { NetworkCaptureSchema } from './network-capture-schema.js';
import {
  blockResourcesField,
  cacheTtlField,
  customHeadersField,
  engineField,
  maxCostField,
  methodField,
  modeField,
  plainObjectField,
  proxyCountryField,
  proxyField,
  responseFormatField,
  screenshotFormatField,
  screenshotQualityField,
  selectorField,
  selectorListField,
  statusCodesField,
  stickyKeyField,
  stringIdField,
  waitField,
  waitForTimeoutField,
} from './fields.js';

/**
 * The scrape parameters after validation and normalisation (defaults of lib/scrape/defaults.ts
 * applied once by the gateway, enums folded, aliases resolved): what `ScrapeJob.params` carries and
 * every engine reads. Built from the field definitions the gateway validates requests with, so a
 * worker decoding a job checks exactly what the gateway accepted; every field is required (the
 * gateway always sends all of them, so the engines never apply defaults of their own).
 */
export const ScrapeParamsSchema = z.object({
  // The gateway's checked and serialised URL (`URL.href`): percent-encoding may make it longer than
  // the URL_MAX_CHARS a caller may send, so only its type is checked here.
  url: z.string(),
  method: methodField,
  js_render: z.boolean(),
  stealth: z.boolean(),
  impersonate: z.boolean(),
  mode: modeField.nullable(),
  engine: engineField.nullable(),
  premium_proxy: z.boolean(),
  proxy_country: proxyCountryField.nullable(),
  proxy: proxyField.nullable(),
  proxy_verify: z.boolean(),
  session_id: storableString().nullable(),
  sticky_key: stickyKeyField.nullable(),
  wait: waitField,
  wait_for: selectorField.nullable(),
  wait_for_timeout: waitForTimeoutField,
  actions: ActionsSchema.nullable(),
  /** Null when omitted: the engine applies the default (block image and font, with exceptions). */
  block_resources: blockResourcesField.nullable(),
  headless: z.boolean().nullable(),
  screenshot: z.boolean(),
  screenshot_fullpage: z.boolean(),
  screenshot_selector: selectorField.nullable(),
  screenshot_format: screenshotFormatField,
  screenshot_quality: screenshotQualityField,
  custom_headers: customHeadersField,
  network_capture: NetworkCaptureSchema.nullable(),
  autoparse: z.boolean(),
  links: z.boolean(),
  extract: plainObjectField.nullable(),
  extract_preset: stringIdField.nullable(),
  ai_extract: AiExtractSchema.nullable(),
  main_content_only: z.boolean().nullable(),
  include_tags: selectorListField,
  exclude_tags: selectorListField,
  response_format: responseFormatField,
  max_cost: maxCostField.nullable(),
  cache: z.boolean(),
  cache_ttl: cacheTtlField.nullable(),
  original_status: z.boolean(),
  allowed_status_codes: statusCodesField,
});
export type ScrapeParams = z.output<typeof ScrapeParamsSchema>;
