import type { ErrorCode } from '../../lib/errors/index.js';
import { QUERY_ENCODING, ScrapeInputSchema, type ScrapeFieldName } from '../../lib/scrape/fields.js';
import { jsonSchemaOf, ref } from './components.js';
import type { JsonSchema, OperationSpec, ParameterSpec } from './types.js';

/** The scrape parameters as a POST body carries them, from the schema that validates them. */
export const SCRAPE_PARAMETERS_SCHEMA: JsonSchema = {
  ...jsonSchemaOf(ScrapeInputSchema),
  description:
    'Scrape parameters (docs/parameters.md). `null` means omitted. Unknown fields are a 400 naming them. ' +
    'Case-insensitive enums (method, engine, mode, response_format, block_resources) are validated after lower-casing.',
};

const property = (name: ScrapeFieldName): JsonSchema => {
  const schema = (SCRAPE_PARAMETERS_SCHEMA.properties as Record<string, JsonSchema>)[name];
  const variants = (schema.anyOf as JsonSchema[] | undefined) ?? [schema];
  const nonNull = variants.find((variant) => variant.type !== 'null') ?? {};
  if (Array.isArray(nonNull.type)) return { ...nonNull, type: (nonNull.type as string[]).find((type) => type !== 'null') };
  return nonNull;
};

/** One query parameter per scrape field, spelled as GET /v1/scrape decodes it (lib/scrape/get-query.ts). */
function scrapeQueryParameters(): ParameterSpec[] {
  return (Object.keys(QUERY_ENCODING) as ScrapeFieldName[]).map((name): ParameterSpec => {
    const encoding = QUERY_ENCODING[name];
    const base = { name, in: 'query' as const, required: name === 'url' };
    switch (encoding) {
      case 'boolean':
        return { ...base, description: 'true, false, 1 or 0.', schema: { type: 'boolean' } };
      case 'integer':
        return { ...base, description: 'An integer.', schema: property(name) };
      case 'list':
        return { ...base, description: 'Comma-separated, or a URL-encoded JSON array.', schema: { type: 'array', items: { type: 'string' } }, commaList: true };
      case 'integer-list':
        return { ...base, description: 'Comma-separated integers, or a URL-encoded JSON array.', schema: { type: 'array', items: { type: 'integer' } }, commaList: true };
      case 'json':
        return { ...base, description: 'URL-encoded JSON.', jsonContent: property(name) };
      case 'string':
        return { ...base, description: name === 'url' ? 'The page to scrape (http or https).' : 'A string.', schema: property(name), ...(name === 'url' ? { example: 'https://example.com/' } : {}) };
    }
  });
}

/** What validating, routing and pricing scrape parameters can refuse (scrape and batch submissions). */
export const PARAMETER_ERRORS: ErrorCode[] = [
  'ERR::REQUEST::MISSING_PARAMETER',
  'ERR::REQUEST::INVALID_PARAMETER',
  'ERR::REQUEST::INCOMPATIBLE_FLAGS',
  'ERR::REQUEST::CAPABILITY_UNSUPPORTED',
  'ERR::SECURITY::SSRF_BLOCKED',
  'ERR::SECURITY::URL_BLOCKED',
  'ERR::SECURITY::INVALID_URL',
  'ERR::AUTH::ENGINE_NOT_ENTITLED',
  'ERR::EXTRACT::INVALID_RULES',
  'ERR::LIMIT::MAX_COST_EXCEEDED',
  'ERR::LIMIT::QUOTA_EXCEEDED',
  'ERR::ENGINE::UNAVAILABLE',
  'ERR::INTERNAL::UNAVAILABLE',
];

const SCRAPE_ERRORS: ErrorCode[] = [
  ...PARAMETER_ERRORS,
  'ERR::LIMIT::CONCURRENCY_EXCEEDED',
  'ERR::SESSION::NOT_FOUND',
  'ERR::SESSION::EXPIRED',
  'ERR::SESSION::RELEASED',
  'ERR::SESSION::BUSY',
  'ERR::SESSION::STATE_CORRUPT',
  'ERR::UPSTREAM::TIMEOUT',
  'ERR::UPSTREAM::DNS_FAILED',
  'ERR::UPSTREAM::TLS_FAILED',
  'ERR::UPSTREAM::CONNECTION_RESET',
  'ERR::UPSTREAM::TOO_MANY_REDIRECTS',
  'ERR::UPSTREAM::ERROR',
  'ERR::UPSTREAM::CHALLENGE',
  'ERR::PROXY::EXHAUSTED',
  'ERR::PROXY::UNREACHABLE',
  'ERR::PROXY::AUTH_FAILED',
  'ERR::PROXY::RATE_LIMITED',
  'ERR::ENGINE::RENDER_FAILED',
  'ERR::EXTRACT::FAILED',
];

/** The JSON envelope (response_format=json, or any of screenshot, autoparse, links, extract...). */
export const SCRAPE_ENVELOPE_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'The JSON envelope of a scrape (docs/content.md). Fields not listed may be present.',
  properties: {
    status: { type: 'integer', description: "The target's HTTP status." },
    url: { type: 'string' },
    final_url: { type: 'string' },
    content: { description: 'The document in the asked format.' },
    data: { description: 'Extracted data (extract, autoparse, ai_extract: the model object alone, or under data.ai_extract beside the others).' },
    links: { type: 'array', items: { type: 'string' } },
    network: { type: 'array', items: { type: 'object' } },
    screenshots: { type: 'array', items: { type: 'object' } },
    empty_fields: { type: 'array', items: { type: 'string' } },
    request_id: { type: 'string' },
    engine: { type: 'string' },
    credits_charged: { type: 'number' },
    cache_state: { type: 'string', enum: ['hit', 'miss', 'bypass'] },
    warnings: { type: 'array', items: { type: 'string' } },
    diagnostics: { type: 'object', properties: { attempts: { type: 'array', items: { type: 'object' } } } },
  },
};

const SUCCESS_HEADERS = ['X-Target-Status', 'X-Engine', 'Cache-State', 'X-Warning', 'Concurrency-Limit', 'Concurrency-Remaining'];
const scrapeSuccess = {
  status: 200,
  description:
    'The page, as html, markdown, text or pdf following `response_format`, or the JSON envelope. ' +
    'With `original_status=true` the status line is the target\'s. Billed only when the answer says so (X-Credits-Charged).',
  headers: SUCCESS_HEADERS,
  content: {
    'text/html': { schema: { type: 'string' } },
    'text/markdown': { schema: { type: 'string' } },
    'text/plain': { schema: { type: 'string' } },
    'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } },
    'application/json': { schema: ref('ScrapeEnvelope') },
  },
};

export const scrapeOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/v1/scrape',
    operationId: 'scrapeGet',
    tag: 'Scrape',
    summary: 'Scrape one URL (parameters in the query string)',
    description: 'Each request performs and bills a new scrape unless served from cache. HEAD is refused.',
    access: 'scrape',
    parameters: scrapeQueryParameters(),
    responses: [scrapeSuccess],
    errors: SCRAPE_ERRORS,
  },
  {
    method: 'post',
    path: '/v1/scrape',
    operationId: 'scrapePost',
    tag: 'Scrape',
    summary: 'Scrape one URL (parameters in a JSON body)',
    access: 'scrape',
    requestBody: { required: true, description: 'The scrape parameters; `url` is required.', schema: ref('ScrapeParameters'), example: { url: 'https://example.com/', response_format: 'markdown' } },
    responses: [scrapeSuccess],
    errors: SCRAPE_ERRORS,
  },
];
