import { z } from 'zod';
import { QUERY_ENCODING, ScrapeInputSchema, type QueryEncoding, type ScrapeFieldName } from './fields.js';
import { RESOURCE_CLASSES, SCREENSHOT_FORMATS } from './vocabulary.js';

/**
 * One scrape parameter as a form or a help text shows it, derived from the wire schema and its GET
 * encoding table (the definitions /v1/scrape validates with), so a parameter added there shows up in
 * the dashboard's playground without an edit.
 */
export interface ScrapeFieldDescription {
  name: ScrapeFieldName;
  encoding: QueryEncoding;
  /** The closed value list of an enum field, or of a list field's items. */
  values?: string[];
  minimum?: number;
  maximum?: number;
  help?: string;
  group: ScrapeFieldGroup;
}

export type ScrapeFieldGroup = 'target' | 'engine' | 'browser' | 'proxy' | 'output' | 'billing';

/** Fields whose value list a transform hides from the JSON Schema (aliases are folded before checking). */
const TRANSFORMED_VALUES: Partial<Record<ScrapeFieldName, readonly string[]>> = {
  block_resources: RESOURCE_CLASSES,
  screenshot_format: SCREENSHOT_FORMATS,
};

/** One line each (docs/parameters.md has the rules); a field without one still gets its control. */
export const SCRAPE_FIELD_HELP: Partial<Record<ScrapeFieldName, string>> = {
  url: 'The page to scrape (http or https).',
  method: 'HTTP method sent to the target.',
  js_render: 'Render in a browser (chromium unless engine says otherwise).',
  stealth: 'Browser with anti-bot measures (camoufox).',
  impersonate: "Fetch with a browser's TLS and header fingerprint.",
  mode: '"auto" climbs from the cheapest engine until the page is usable.',
  engine: 'Pin one engine; see the price list.',
  premium_proxy: 'Residential exit (dearer).',
  proxy_country: 'ISO 3166-1 alpha-2 code of the exit country.',
  proxy: 'Your own proxy URL (http, https or socks5).',
  session_id: 'Reuse a browser session (POST /v1/sessions).',
  wait: 'Extra milliseconds to wait after the page settled.',
  wait_for: 'CSS selector to wait for before reading the page.',
  wait_for_timeout: 'How long wait_for may wait, in ms.',
  actions: 'Steps run in the browser (docs/actions.md), as JSON.',
  block_resources: 'Resource classes the browser does not load.',
  screenshot: 'Take a screenshot (answers with the JSON envelope).',
  screenshot_fullpage: 'The whole page rather than the viewport.',
  custom_headers: 'Headers sent to the target, as a JSON object.',
  extract: 'CSS extraction rules as JSON (docs/content.md).',
  autoparse: 'Structured data found on the page (JSON-LD, meta).',
  links: 'List the links of the page.',
  main_content_only: 'Drop navigation, headers and footers.',
  response_format: 'html, markdown, text, pdf or the json envelope.',
  max_cost: 'Refuse the request if it could cost more credits than this.',
  cache: 'Read and write the cache (GET scrapes only).',
  cache_ttl: 'Seconds a cached answer may be old.',
  original_status: "Put the target's status on the answer's status line.",
  allowed_status_codes: 'Target statuses billed and answered like a 200.',
};

const GROUPS: Array<[ScrapeFieldGroup, RegExp]> = [
  ['target', /^(url|method|custom_headers|session_id|cache|cache_ttl)$/],
  ['engine', /^(js_render|stealth|impersonate|mode|engine|headless)$/],
  ['browser', /^(wait|wait_for|wait_for_timeout|actions|block_resources|screenshot.*|network_capture)$/],
  ['proxy', /^(premium_proxy|proxy.*|sticky_key)$/],
  ['billing', /^(max_cost|original_status|allowed_status_codes)$/],
];

type Schema = { type?: string | string[]; enum?: unknown[]; minimum?: number; maximum?: number; anyOf?: Schema[]; items?: Schema };

function nonNull(schema: Schema | undefined): Schema {
  if (!schema) return {};
  const variant = schema.anyOf?.find((candidate) => candidate.type !== 'null') ?? schema;
  return variant;
}

let described: ScrapeFieldDescription[] | undefined;

export function scrapeFieldTable(): ScrapeFieldDescription[] {
  if (described) return described;
  const input = z.toJSONSchema(ScrapeInputSchema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, Schema> };
  const output = z.toJSONSchema(ScrapeInputSchema, { io: 'output', unrepresentable: 'any' }) as { properties: Record<string, Schema> };
  described = (Object.keys(QUERY_ENCODING) as ScrapeFieldName[]).map((name) => {
    const inSchema = nonNull(input.properties[name]);
    const outSchema = nonNull(output.properties[name]);
    const bounds = inSchema.items ?? inSchema;
    const values = TRANSFORMED_VALUES[name] ?? outSchema.enum ?? outSchema.items?.enum;
    const entry: ScrapeFieldDescription = {
      name,
      encoding: QUERY_ENCODING[name],
      group: GROUPS.find(([, pattern]) => pattern.test(name))?.[0] ?? 'output',
    };
    if (values) entry.values = values.map(String);
    if (typeof bounds.minimum === 'number') entry.minimum = bounds.minimum;
    if (typeof bounds.maximum === 'number') entry.maximum = bounds.maximum;
    if (SCRAPE_FIELD_HELP[name]) entry.help = SCRAPE_FIELD_HELP[name];
    return entry;
  });
  return described;
}
