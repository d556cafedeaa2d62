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
    summary: 'Remote browser over CDP: a WebSocket upgrade that Playwright connectOverCDP or puppeteer.connect use',
    description:
      'Upgrades to a Chrome DevTools Protocol WebSocket on a browser context of its own, behind the egress guard (docs/remote-browser.md). ' +
      'The one route that accepts the key in the query string (`apikey` or `api_key`). Every started minute is billed at the engine price ' +
      '(chromium 8, obscura 3 credits; residential exits 32 and 25); the whole TTL is held before the upgrade. The charge arrives as a last text ' +
      'frame `{"trawler":{"credits_charged":N,"reason":"…"}}` before the close (1000 client, 4000 ttl, 4001 idle, 1011 browser or worker gone, 1001 shutdown). ' +
      '501 where the route is turned off or no render engine is deployed.',
    access: 'browser',
    parameters: [
      { name: 'engine', in: 'query', description: 'Browser engine.', schema: { type: 'string', enum: ['chromium', 'obscura'], default: 'chromium' } },
      { name: 'ttl', in: 'query', description: 'Seconds the connection may last; held in full before the upgrade.', schema: { type: 'integer', minimum: 1, maximum: 3600, default: 300 } },
      { name: 'idle_timeout', in: 'query', description: 'Seconds without a client message before the connection closes (4001).', schema: { type: 'integer', minimum: 1, maximum: 600, default: 60 } },
      { name: 'headless', in: 'query', description: '`false`: a headful Chromium of its own on a virtual display (chromium only).', schema: { type: 'boolean', default: true } },
      { name: 'proxy', in: 'query', description: 'Your proxy URL; every connection of the browser goes through it, behind the egress guard.', schema: { type: 'string' } },
      { name: 'premium_proxy', in: 'query', description: 'One residential exit of the managed pool for the whole connection (residential price).', schema: { type: 'boolean', default: false } },
      { name: 'proxy_country', in: 'query', description: 'ISO 3166-1 alpha-2 country of the residential exit; needs premium_proxy=true.', schema: { type: 'string' } },
      { name: 'session_id', in: 'query', description: "A session whose cookies and localStorage (per origin) the context starts with; both are saved back when the connection ends (docs/remote-browser.md \"Sessions\").", schema: { type: 'string' } },
      { name: 'apikey', in: 'query', description: 'The API key, when the client cannot send Authorization (also `api_key`).', schema: { type: 'string' } },
    ],
    responses: [{ status: 101, description: 'Switched to the CDP WebSocket.', headers: ['X-Request-Id', 'X-Credits-Reserved'] }],
    errors: ['ERR::ENGINE::UNAVAILABLE', 'ERR::REQUEST::INVALID_PARAMETER', 'ERR::REQUEST::INCOMPATIBLE_FLAGS', 'ERR::REQUEST::CAPABILITY_UNSUPPORTED', 'ERR::LIMIT::CONCURRENCY_EXCEEDED', 'ERR::LIMIT::QUOTA_EXCEEDED', 'ERR::PROXY::EXHAUSTED', 'ERR::SESSION::NOT_FOUND', 'ERR::SESSION::EXPIRED', 'ERR::SESSION::RELEASED', 'ERR::SESSION::BUSY', 'ERR::INTERNAL::UNAVAILABLE'],
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
