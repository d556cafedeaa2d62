import { SKIP_REASONS } from '../../lib/crawl/crawl-rules.js';
import { CrawlBodySchema } from '../crawl/service.js';
import { MapBodySchema } from '../crawl/map.js';
import { BATCH_JOB_SCHEMA } from './batch.js';
import { jsonContent, jsonSchemaOf, NO_STORE, ref } from './components.js';
import { PARAMETER_ERRORS } from './scrape.js';
import type { JsonSchema, OperationSpec } from './types.js';

const counts = { type: 'object', properties: Object.fromEntries(SKIP_REASONS.map((reason) => [reason, { type: 'integer' }])) };

/** The crawl object: the batch job object plus `crawl` (gateway/crawl/crawl-view.ts, docs/crawl.md). */
export const CRAWL_SCHEMAS: Record<string, JsonSchema> = {
  CrawlRequest: { ...jsonSchemaOf(CrawlBodySchema), description: 'The seed, the crawl rules, batch run controls, and `scrape`: the scrape parameters of every page (docs/crawl.md).' },
  Crawl: {
    ...BATCH_JOB_SCHEMA,
    required: [...(BATCH_JOB_SCHEMA.required as string[]), 'crawl'],
    properties: {
      ...(BATCH_JOB_SCHEMA.properties as Record<string, JsonSchema>),
      crawl: {
        type: 'object',
        required: ['url', 'rules', 'robots_txt', 'discovered', 'queued', 'skipped', 'by_depth'],
        properties: {
          url: { type: 'string', description: 'The seed, normalised.' },
          rules: { type: 'object', description: 'The rules as stored, defaults filled in (`delay_ms` and `max_concurrency_per_host` included).' },
          robots_txt: { type: 'string', enum: ['obeyed', 'none', 'unreachable', 'ignored'] },
          stopped_reason: { type: 'string', description: 'Why no more pages were added (`credits: ...`).' },
          discovered: { type: 'integer', description: 'queued plus every skip.' },
          queued: { type: 'integer', description: 'Pages made items (each once).' },
          skipped: { ...counts, description: 'URLs not queued, by reason, each distinct URL counted once (a page reached again by redirect counts as `duplicate`).' },
          by_depth: { type: 'array', items: { type: 'object', properties: { depth: { type: 'integer' }, queued: { type: 'integer' }, skipped: counts } } },
        },
      },
    },
  },
  MapRequest: jsonSchemaOf(MapBodySchema),
};

export const crawlOperations: OperationSpec[] = [
  {
    method: 'post',
    path: '/v1/crawl',
    operationId: 'createCrawl',
    tag: 'Crawl',
    summary: 'Crawl a site from one URL',
    description:
      'A batch job (`kind` crawl) whose items are discovered: the `/v1/batch/{batchID}` routes (results, cancel, retry) take its id; ' +
      'its result lines also have `depth` and `parent_url` (BatchResultLine). robots.txt and sitemaps are read before the answer.',
    access: 'batch',
    requestBody: { required: true, description: 'Seed, rules and scrape parameters.', schema: ref('CrawlRequest') },
    responses: [{ status: 202, description: 'The crawl, queued with its seed (and sitemap pages).', content: jsonContent(ref('Crawl')) }],
    errors: PARAMETER_ERRORS,
  },
  {
    method: 'get',
    path: '/v1/crawl/{crawlID}',
    operationId: 'getCrawl',
    tag: 'Crawl',
    summary: 'Read a crawl: the batch job and what was discovered, queued and skipped',
    access: 'batch',
    parameters: [{ name: 'crawlID', in: 'path', required: true, description: 'Crawl (batch job) id.', schema: { type: 'string' } }],
    responses: [{ status: 200, description: 'The crawl.', headers: NO_STORE, content: jsonContent(ref('Crawl')) }],
    errors: ['ERR::REQUEST::INVALID_PARAMETER', 'ERR::REQUEST::NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v1/map',
    operationId: 'mapSite',
    tag: 'Crawl',
    summary: "A site's URLs from its sitemaps, robots.txt and the seed page's links",
    description: 'Read by the gateway over plain HTTP (no engine); charges no credits.',
    access: 'scrape',
    requestBody: { required: true, description: 'Seed, filters and limit.', schema: ref('MapRequest') },
    responses: [{ status: 200, description: 'The URLs, normalised.', headers: NO_STORE, content: jsonContent({ type: 'object', required: ['success', 'links'], properties: { success: { type: 'boolean' }, links: { type: 'array', items: { type: 'string' } } } }) }],
    errors: PARAMETER_ERRORS,
  },
];
