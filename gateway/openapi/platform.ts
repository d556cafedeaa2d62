import { jsonContent } from './components.js';
import type { JsonSchema, OperationSpec } from './types.js';

const check = { type: 'object', properties: { ok: { type: 'boolean' }, latency_ms: { type: 'number' }, error: { type: 'string' } } };
const readiness: JsonSchema = {
  type: 'object',
  required: ['status', 'draining', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ready', 'unavailable'] },
    draining: { type: 'boolean' },
    checks: { type: 'object', properties: { store: check, bus: check } },
    engines: { type: 'object', description: 'Ready workers per engine.' },
  },
};

/** Probes, fleet, the remote browser placeholder, and this document with its rendered reference. */
export const platformOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/healthz',
    operationId: 'healthz',
    tag: 'Health',
    summary: 'Liveness: the process serves HTTP (no dependency checked)',
    access: 'public',
    responses: [
      {
        status: 200,
        description: 'Alive.',
        content: jsonContent({ type: 'object', properties: { status: { const: 'ok' }, version: { type: 'string' }, uptime_seconds: { type: 'integer' } } }),
      },
    ],
    errors: [],
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'readyz',
    tag: 'Health',
    summary: 'Readiness: the store and the bus answer and the gateway is not draining',
    access: 'public',
    responses: [
      { status: 200, description: 'Ready.', content: jsonContent(readiness) },
      { status: 503, description: 'Not ready: a check failed or the gateway is draining (same body).', content: jsonContent(readiness) },
    ],
    errors: [],
  },
  {
    method: 'get',
    path: '/v1/workers',
    operationId: 'listWorkers',
    tag: 'Fleet',
    summary: 'The engine workers this gateway sees',
    access: 'key',
    responses: [
      {
        status: 200,
        description: 'Workers, a per-engine summary and the bus transport.',
        content: jsonContent({ type: 'object', properties: { workers: { type: 'array', items: { type: 'object' } }, engines: { type: 'object' }, transport: { type: 'string' }, observed_at: { type: 'string', format: 'date-time' } } }),
      },
    ],
    errors: [],
  },
  {
    method: 'get',
    path: '/v1/browser',
    operationId: 'remoteBrowser',
    tag: 'Fleet',
    summary: 'Remote browser over CDP (coming soon): always 501',
    description: 'The one route that accepts the key in the query string (`apikey` or `api_key`).',
    access: 'browser',
    responses: [],
    errors: ['ERR::ENGINE::UNAVAILABLE'],
  },
  {
    method: 'post',
    path: '/v1/mcp',
    operationId: 'mcp',
    tag: 'Fleet',
    summary: 'Model Context Protocol over Streamable HTTP (stateless, JSON answers): tools for agents',
    description:
      'JSON-RPC 2.0 messages of MCP (initialize, tools/list, tools/call); send `Accept: application/json, text/event-stream`. ' +
      'Any valid key lists the tools; each tool checks its own scope and answers failures as tool errors carrying the problem code and retryable (docs/mcp.md).',
    access: 'key',
    requestBody: { required: true, description: 'One JSON-RPC message or a batch of them.', schema: { type: 'object' } },
    responses: [
      { status: 200, description: 'The JSON-RPC response.', content: jsonContent({ type: 'object' }) },
      { status: 202, description: 'A notification was accepted (no body).' },
    ],
    errors: ['ERR::REQUEST::INVALID'],
  },
  {
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'openapiDocument',
    tag: 'Reference',
    summary: 'This document (OpenAPI 3.1), without authentication',
    description: 'Public like the probes: it describes the API and holds nothing of any tenant. Query parameters are refused.',
    access: 'public',
    responses: [{ status: 200, description: 'The OpenAPI document.', content: jsonContent({ type: 'object' }) }],
    errors: ['ERR::REQUEST::INVALID_PARAMETER'],
  },
  {
    method: 'get',
    path: '/v1/reference/',
    operationId: 'apiReference',
    tag: 'Reference',
    summary: 'This document rendered as a page (Swagger UI, served locally), without authentication',
    access: 'public',
    responses: [{ status: 200, description: 'An HTML page; its scripts and styles are served beside it.', content: { 'text/html': { schema: { type: 'string' } } } }],
    errors: [],
  },
];
