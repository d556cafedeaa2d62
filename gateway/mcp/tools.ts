import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ServiceError } from '../../lib/errors/index.js';
import type { Scope } from '../../lib/store/accounts.js';
import { BATCH_SUBMISSION_SCHEMA } from '../openapi/batch.js';
import { CRAWL_SCHEMAS } from '../openapi/crawl.js';
import { SCRAPE_PARAMETERS_SCHEMA } from '../openapi/scrape.js';
import { CREATE_SESSION_SCHEMA } from '../openapi/sessions.js';
import type { JsonSchema } from '../openapi/types.js';
import { answerProblem, jsonResult, parseJson, type ApiAnswer } from './results.js';

/** The gateway's own API, called with the caller's key (docs/mcp.md "How a tool runs"). */
export type CallApi = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<ApiAnswer>;

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  inputSchema: JsonSchema;
  run(args: Record<string, unknown>, api: CallApi): Promise<CallToolResult>;
}

/** What every scrape answer says of itself, in the result's `_meta` (not in the text a model reads). */
function scrapeMeta(answer: ApiAnswer): Record<string, unknown> {
  const header = (name: string) => answer.headers.get(name);
  return {
    'dev.trawler/request_id': header('x-request-id'),
    'dev.trawler/credits_charged': Number(header('x-credits-charged') ?? 0),
    'dev.trawler/target_status': header('x-target-status') === null ? null : Number(header('x-target-status')),
    'dev.trawler/engine': header('x-engine'),
  };
}

/** The id argument each id-taking tool names. */
const ID_FIELDS = { '/v1/batch': 'batch_id', '/v1/sessions': 'session_id', '/v1/crawl': 'crawl_id' } as const;

/** `/v1/batch/{id}...` with the id from the arguments (`field`, default the prefix's own), encoded so it can only ever be one path segment. */
function idPath(prefix: keyof typeof ID_FIELDS, args: Record<string, unknown>, suffix = '', field: string = ID_FIELDS[prefix]): string {
  const id = args[field];
  if (typeof id !== 'string' || id === '') throw new ServiceError('ERR::REQUEST::MISSING_PARAMETER', `${field}: required`);
  return `${prefix}/${encodeURIComponent(id)}${suffix}`;
}

function query(values: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== null) params.set(name, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

async function scrapeTool(args: Record<string, unknown>, api: CallApi): Promise<CallToolResult> {
  const answer = await api('POST', '/v1/scrape', { response_format: 'markdown', ...args });
  if (answer.status >= 400) return answerProblem(answer);
  const type = answer.headers.get('content-type') ?? '';
  const meta = scrapeMeta(answer);
  if (type.startsWith('application/json')) return jsonResult(parseJson(answer), meta);
  if (type.startsWith('application/pdf')) {
    return { content: [{ type: 'resource', resource: { uri: String(args.url), mimeType: 'application/pdf', blob: answer.body.toString('base64') } }], _meta: meta };
  }
  return { content: [{ type: 'text', text: answer.body.toString('utf8') }], _meta: meta };
}

async function extractTool(args: Record<string, unknown>, api: CallApi): Promise<CallToolResult> {
  const asked = ['extract', 'ai_extract', 'autoparse'].some((name) => args[name] !== undefined && args[name] !== null && args[name] !== false);
  if (!asked) throw new ServiceError('ERR::REQUEST::MISSING_PARAMETER', 'extract, ai_extract or autoparse: give at least one');
  const answer = await api('POST', '/v1/scrape', { ...args, response_format: 'json' });
  if (answer.status >= 400) return answerProblem(answer);
  const envelope = parseJson(answer);
  return jsonResult({ url: envelope.final_url, status: envelope.status, data: envelope.data ?? null, empty_fields: envelope.empty_fields ?? [] }, scrapeMeta(answer));
}

async function jsonCall(api: CallApi, method: 'GET' | 'POST', path: string, body?: unknown): Promise<CallToolResult> {
  const answer = await api(method, path, body);
  return answer.status >= 400 ? answerProblem(answer) : jsonResult(parseJson(answer));
}

/** One page of `GET /v1/batch/{id}/results` (a crawl's id too), or the problem it answered. */
async function resultsPage(args: Record<string, unknown>, api: CallApi, idField: string): Promise<{ items: unknown[]; next_cursor: string | null } | CallToolResult> {
  const answer = await api('GET', idPath('/v1/batch', args, `/results${query({ cursor: args.cursor, limit: args.limit, status: args.status })}`, idField));
  if (answer.status >= 400) return answerProblem(answer);
  const items = answer.body.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown);
  return { items, next_cursor: answer.headers.get('x-next-cursor') };
}

async function batchResults(args: Record<string, unknown>, api: CallApi): Promise<CallToolResult> {
  const page = await resultsPage(args, api, 'batch_id');
  return 'items' in page ? jsonResult(page) : page;
}

/** The crawl object, with one page of its results under `results` (docs/mcp.md). */
async function crawlStatus(args: Record<string, unknown>, api: CallApi): Promise<CallToolResult> {
  const answer = await api('GET', idPath('/v1/crawl', args));
  if (answer.status >= 400) return answerProblem(answer);
  const page = await resultsPage(args, api, 'crawl_id');
  return 'items' in page ? jsonResult({ ...parseJson(answer), results: page }) : page;
}

const scrapeFields = SCRAPE_PARAMETERS_SCHEMA.properties as Record<string, JsonSchema>;
const resultsPaging: Record<string, JsonSchema> = {
  cursor: { type: 'string', description: 'next_cursor of the previous page' },
  limit: { type: 'integer', minimum: 1, maximum: 5000, description: 'Items per page (default 500).' },
  status: { type: 'string', enum: ['succeeded', 'failed', 'cancelled', 'skipped'] },
};
const idSchema = (name: string, what: string): JsonSchema => ({ type: 'object', properties: { [name]: { type: 'string', description: what } }, required: [name], additionalProperties: false });

/**
 * The tools (docs/mcp.md). Input schemas are the API's own, from the zod schemas that validate the
 * routes (through the OpenAPI document's builders); the API validates every call as for any caller.
 * Without a model, `ai_extract` is left out of the scrape and extract tools.
 */
export function toolSpecs(options: { aiExtract: boolean }): ToolSpec[] {
  const { ai_extract: aiField, ...withoutAi } = scrapeFields;
  const fields = options.aiExtract ? scrapeFields : withoutAi;
  const scrapeInput: JsonSchema = { type: 'object', properties: fields, required: ['url'], additionalProperties: false };
  return [
    {
      name: 'scrape',
      title: 'Scrape a web page',
      description: 'Fetch one URL and return it as markdown (main content) by default; response_format html, text, pdf or json (the JSON envelope) on request. js_render=true or mode=auto for pages that need JavaScript. Billed per the API (X-Credits-Charged in _meta).',
      scope: 'scrape',
      inputSchema: scrapeInput,
      run: scrapeTool,
    },
    {
      name: 'extract',
      title: 'Extract structured data from a web page',
      description:
        'Fetch one URL and return `data`: `extract` takes CSS selector rules (a selector map or a JSON Schema whose properties carry `selector`); `autoparse` harvests JSON-LD, OpenGraph and the like' +
        (options.aiExtract ? '; `ai_extract` {prompt, schema} asks the deployment\'s model (4 credits more).' : '.'),
      scope: 'scrape',
      inputSchema: { ...scrapeInput, description: aiField && options.aiExtract ? 'Give extract, autoparse or ai_extract.' : 'Give extract or autoparse.' },
      run: extractTool,
    },
    {
      name: 'batch_scrape',
      title: 'Start a batch scrape job',
      description: 'Queue many URLs as one asynchronous job (`urls`, or `items` with per-item parameters); job-level scrape parameters apply to every item. Returns the job; follow it with batch_status and batch_results.',
      scope: 'batch',
      inputSchema: BATCH_SUBMISSION_SCHEMA,
      run: (args, api) => jsonCall(api, 'POST', '/v1/batch', args),
    },
    {
      name: 'batch_status',
      title: 'Status of a batch job',
      description: 'The job object: status, progress, credits charged.',
      scope: 'batch',
      inputSchema: idSchema('batch_id', 'The job id batch_scrape returned.'),
      run: (args, api) => jsonCall(api, 'GET', idPath('/v1/batch', args)),
    },
    {
      name: 'batch_results',
      title: 'Results of a batch job, a page at a time',
      description: 'Finished items in seq order; pass next_cursor back as cursor for the next page (null: last page).',
      scope: 'batch',
      inputSchema: {
        type: 'object',
        properties: { batch_id: { type: 'string' }, ...resultsPaging },
        required: ['batch_id'],
        additionalProperties: false,
      },
      run: batchResults,
    },
    {
      name: 'crawl',
      title: 'Start crawling a site',
      description:
        'Crawl from one URL, following links (and sitemaps) within the rules: limit, max_depth, include_paths/exclude_paths, allow_subdomains, sitemap; `scrape` holds the scrape parameters of every page. Returns the crawl (a batch job); follow it with crawl_status.',
      scope: 'batch',
      inputSchema: CRAWL_SCHEMAS.CrawlRequest,
      run: (args, api) => jsonCall(api, 'POST', '/v1/crawl', args),
    },
    {
      name: 'crawl_status',
      title: 'Status and results of a crawl',
      description: 'The crawl: status, progress, what was discovered, queued and skipped; with `results`, one page of finished pages in seq order. Pass results.next_cursor back as cursor for the next page (null: last page).',
      scope: 'batch',
      inputSchema: { type: 'object', properties: { crawl_id: { type: 'string', description: 'The id crawl returned.' }, ...resultsPaging }, required: ['crawl_id'], additionalProperties: false },
      run: crawlStatus,
    },
    {
      name: 'map',
      title: "List a site's URLs",
      description: "The site's URLs from its sitemaps, robots.txt and the seed page's links, without scraping them; no credits charged.",
      scope: 'scrape',
      inputSchema: CRAWL_SCHEMAS.MapRequest,
      run: (args, api) => jsonCall(api, 'POST', '/v1/map', args),
    },
    {
      name: 'session_create',
      title: 'Create a browser session',
      description: 'A persisted cookie jar and storage pinned to one engine; pass its id as session_id to scrape.',
      scope: 'sessions',
      inputSchema: CREATE_SESSION_SCHEMA,
      run: (args, api) => jsonCall(api, 'POST', '/v1/sessions', args),
    },
    {
      name: 'session_get',
      title: 'Read a session',
      description: 'The session object (status, engine, usage, expiry).',
      scope: 'sessions',
      inputSchema: idSchema('session_id', 'The session id.'),
      run: (args, api) => jsonCall(api, 'GET', idPath('/v1/sessions', args)),
    },
    {
      name: 'session_list',
      title: 'List sessions',
      description: 'Sessions of the project, newest first; pass next_cursor back as cursor.',
      scope: 'sessions',
      inputSchema: { type: 'object', properties: { cursor: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 200 } }, additionalProperties: false },
      run: (args, api) => jsonCall(api, 'GET', `/v1/sessions${query({ cursor: args.cursor, limit: args.limit })}`),
    },
    {
      name: 'session_release',
      title: 'Release a session',
      description: 'Ends the session and destroys its context; force=true even while a render holds it.',
      scope: 'sessions',
      inputSchema: { type: 'object', properties: { session_id: { type: 'string' }, force: { type: 'boolean' } }, required: ['session_id'], additionalProperties: false },
      run: (args, api) => jsonCall(api, 'POST', idPath('/v1/sessions', args, `/release${query({ force: args.force })}`)),
    },
  ];
}
