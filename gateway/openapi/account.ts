import type { z } from 'zod';
import { REQUEST_STATUSES } from '../../lib/store/request-log-entry.js';
import { MAX_PAGE_SIZE, REQUEST_LOG_LIST_PARAMETERS } from '../request-log/list-query.js';
import { SummaryQuery, UsageQuery } from '../usage/usage-query.js';
import { CreateEndpointSchema } from '../webhooks/endpoint-body.js';
import { jsonContent, jsonSchemaOf, NO_STORE, ref } from './components.js';
import type { JsonSchema, OperationSpec, ParameterSpec } from './types.js';

const object = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: 'object', properties });

/** Query parameters straight from the zod schema that parses them. */
function queryParameters(schema: z.ZodType, descriptions: Record<string, string>): ParameterSpec[] {
  const properties = jsonSchemaOf(schema).properties as Record<string, JsonSchema>;
  return Object.entries(properties).map(([name, property]) => ({ name, in: 'query', description: descriptions[name] ?? name, schema: property }));
}

const USAGE_DESCRIPTIONS = {
  environment: 'live or test keys\' account (default live). The test account\'s allowance is the deployment\'s TEST_MONTHLY_CREDITS, not the live one.',
  at: 'An instant inside the allowance period to report (default now).',
  from: 'Window start (default: start of the current allowance period).',
  to: 'Window end (default: end of the current allowance period); at most 366 days after from.',
  group_by: 'Comma-separated grouping keys (default day).',
};

const REQUEST_LOG_QUERY: Record<(typeof REQUEST_LOG_LIST_PARAMETERS)[number], ParameterSpec> = {
  all_projects: { name: 'all_projects', in: 'query', description: "true: every project of the organization (scope `read`).", schema: { type: 'boolean' } },
  limit: { name: 'limit', in: 'query', description: `Page size, clamped to 1..${MAX_PAGE_SIZE} (default 50).`, schema: { type: 'integer' } },
  status: { name: 'status', in: 'query', description: 'Only entries with this status.', schema: { type: 'string', enum: [...REQUEST_STATUSES] } },
  only_errors: { name: 'only_errors', in: 'query', description: 'true: only entries that are not a success.', schema: { type: 'boolean' } },
  before: { name: 'before', in: 'query', description: 'RFC 3339 date-time: entries created before it (`next_before`).', schema: { type: 'string', format: 'date-time' } },
  before_id: { name: 'before_id', in: 'query', description: 'With `before`: the `next_before_id` tie-breaker.', schema: { type: 'string' } },
};

/** The request log entry (lib/store/request-log-entry.ts). */
export const REQUEST_LOG_ENTRY_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'created_at', 'project_id', 'status', 'attempts', 'credits_micro'],
  properties: {
    id: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    project_id: { type: 'string' },
    engine: { type: ['string', 'null'] },
    status: { type: 'string', enum: [...REQUEST_STATUSES] },
    http_status: { type: ['integer', 'null'] },
    error_code: { type: ['string', 'null'], description: 'FAMILY_NAME form, e.g. UPSTREAM_CHALLENGE.' },
    error_detail: { type: ['string', 'null'] },
    attempts: { type: 'integer' },
    url: { type: ['string', 'null'] },
    url_host: { type: ['string', 'null'] },
    proxy: { type: 'object' },
    spans: { type: 'object' },
    blocked: { type: ['object', 'null'] },
    bytes_in: { type: 'integer' },
    bytes_out: { type: 'integer' },
    proxy_bytes: { type: 'integer' },
    credits_micro: { type: 'integer' },
    features: { type: 'object' },
  },
};

const WEBHOOK_SCHEMA = object({ id: { type: 'string' }, project_id: { type: 'string' }, url: { type: 'string' }, events: { type: 'array', items: { type: 'string' } }, created_at: { type: 'string', format: 'date-time' } });

export const accountOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/v1/requests',
    operationId: 'listRequests',
    tag: 'Request log',
    summary: 'Page through request log entries, newest first',
    description: "Any valid key reads its own project's entries; `all_projects=true` needs scope `read`. Reading the log writes no entry.",
    access: 'key',
    parameters: Object.values(REQUEST_LOG_QUERY),
    responses: [{ status: 200, description: 'A page of entries.', headers: NO_STORE, content: jsonContent(object({ data: { type: 'array', items: ref('RequestLogEntry') }, page: { type: 'object' } })) }],
    errors: ['ERR::REQUEST::INVALID_PARAMETER', 'ERR::AUTH::INSUFFICIENT_SCOPE', 'ERR::REQUEST::BEYOND_RETENTION'],
  },
  {
    method: 'get',
    path: '/v1/requests/{id}',
    operationId: 'getRequest',
    tag: 'Request log',
    summary: 'Read one request log entry by its X-Request-Id',
    access: 'key',
    parameters: [{ name: 'id', in: 'path', required: true, description: 'A ULID (or a UUID form).', schema: { type: 'string' } }],
    responses: [{ status: 200, description: 'The entry.', headers: NO_STORE, content: jsonContent(ref('RequestLogEntry')) }],
    errors: ['ERR::REQUEST::INVALID_PARAMETER', 'ERR::REQUEST::NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v1/usage',
    operationId: 'getUsage',
    tag: 'Usage',
    summary: "The allowance period's credits: allowance, spent, reserved, remaining",
    access: 'read',
    parameters: queryParameters(UsageQuery, USAGE_DESCRIPTIONS),
    responses: [{ status: 200, description: 'Usage of one allowance period (docs/usage.md).', headers: NO_STORE, content: jsonContent({ type: 'object' }) }],
    errors: ['ERR::REQUEST::INVALID_PARAMETER'],
  },
  {
    method: 'get',
    path: '/v1/usage/summary',
    operationId: 'getUsageSummary',
    tag: 'Usage',
    summary: 'Requests and credits in a window, grouped',
    access: 'read',
    parameters: queryParameters(SummaryQuery, USAGE_DESCRIPTIONS),
    responses: [{ status: 200, description: 'Rows and totals (docs/usage.md).', headers: NO_STORE, content: jsonContent({ type: 'object' }) }],
    errors: ['ERR::REQUEST::INVALID_PARAMETER'],
  },
  {
    method: 'get',
    path: '/v1/usage/reconciliation',
    operationId: 'getUsageReconciliation',
    tag: 'Usage',
    summary: 'The ledger beside the per-request holds and the request log',
    access: 'read',
    parameters: queryParameters(UsageQuery, USAGE_DESCRIPTIONS),
    responses: [{ status: 200, description: 'Ledger, holds and whether they agree (docs/usage.md).', headers: NO_STORE, content: jsonContent({ type: 'object' }) }],
    errors: ['ERR::REQUEST::INVALID_PARAMETER'],
  },
  {
    method: 'post',
    path: '/v1/webhooks',
    operationId: 'createWebhook',
    tag: 'Webhooks',
    summary: 'Register a webhook endpoint (batch.finished)',
    access: 'batch',
    requestBody: { required: true, description: 'Where to deliver, and optionally the signing secret.', schema: ref('CreateWebhook'), example: { url: 'https://hooks.example.com/trawler' } },
    responses: [{ status: 201, description: 'The endpoint, with its secret (shown once).', content: jsonContent({ allOf: [ref('Webhook'), object({ secret: { type: 'string' } })] }) }],
    errors: ['ERR::REQUEST::INVALID_PARAMETER', 'ERR::SECURITY::SSRF_BLOCKED', 'ERR::SECURITY::URL_BLOCKED', 'ERR::SECURITY::INVALID_URL'],
  },
  {
    method: 'get',
    path: '/v1/webhooks',
    operationId: 'listWebhooks',
    tag: 'Webhooks',
    summary: "The organization's webhook endpoints",
    access: 'batch',
    responses: [{ status: 200, description: 'Endpoints, without secrets.', headers: NO_STORE, content: jsonContent(object({ webhooks: { type: 'array', items: ref('Webhook') } })) }],
    errors: ['ERR::REQUEST::INVALID_PARAMETER'],
  },
  {
    method: 'delete',
    path: '/v1/webhooks/{id}',
    operationId: 'deleteWebhook',
    tag: 'Webhooks',
    summary: 'Delete a webhook endpoint',
    access: 'batch',
    parameters: [{ name: 'id', in: 'path', required: true, description: 'The endpoint id.', schema: { type: 'string' } }],
    responses: [{ status: 204, description: 'Deleted.' }],
    errors: ['ERR::REQUEST::INVALID_PARAMETER', 'ERR::REQUEST::NOT_FOUND'],
  },
];

export const ACCOUNT_SCHEMAS: Record<string, JsonSchema> = {
  RequestLogEntry: REQUEST_LOG_ENTRY_SCHEMA,
  Webhook: WEBHOOK_SCHEMA,
  CreateWebhook: jsonSchemaOf(CreateEndpointSchema),
};
