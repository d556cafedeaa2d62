/**
 * The hostile forms of the bad-input table (issue 8 items 4-6): every route of the API, with NUL,
 * lone surrogates, over-long strings, prototype keys, deep nesting and out-of-range dates.
 */
export interface Probe {
  /** Short label for the report, e.g. `POST /v1/batch name NUL`. */
  label: string;
  method: string;
  path: string;
  /** A JSON text sent as application/json (built by hand so keys like __proto__ survive). */
  body?: string;
  /** What `detail` must name. */
  field: string;
  /** False where the route writes no request-log entry (reads of the log itself). */
  logs: boolean;
  /** The catalogue code expected; any 400 code when absent. */
  code?: string;
}

export interface Fixtures {
  jobId: string;
  sessionId: string;
  webhookId: string;
  targetUrl: string;
}

const NUL = '\u0000';
const HIGH = '\ud800';
const LOW = '\udc00';
export const BAD_TEXTS: Array<{ name: string; text: string }> = [
  { name: 'NUL', text: `a${NUL}b` },
  { name: 'lone high surrogate', text: `a${HIGH}b` },
  { name: 'lone low surrogate', text: `${LOW}` },
];
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];

/** `{"a":…}` with `value` spliced in as raw JSON. */
function objectWith(base: Record<string, unknown>, key: string, rawValue: string): string {
  const rest = JSON.stringify(base).slice(1, -1);
  return `{${rest}${rest ? ',' : ''}${JSON.stringify(key)}:${rawValue}}`;
}

function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/**
 * One string-bearing field of a body: `make(text)` builds the body with the bad text in that field;
 * `field` is the path the detail must name.
 */
interface StringSlot {
  field: string;
  make: (text: string) => unknown;
}

function scrapeSlots(url: string): StringSlot[] {
  const withUrl = (extra: Record<string, unknown>) => ({ url, ...extra });
  const flat = ['method', 'mode', 'engine', 'proxy_country', 'proxy', 'session_id', 'sticky_key', 'wait_for', 'screenshot_selector', 'screenshot_format', 'response_format', 'extract_preset'];
  return [
    { field: 'url', make: (text) => ({ url: `${url}${text}` }) },
    ...flat.map((name) => ({ field: name, make: (text: string) => withUrl({ [name]: text }) })),
    { field: 'custom_headers.X-Probe', make: (text) => withUrl({ custom_headers: { 'X-Probe': text } }) },
    { field: 'custom_headers', make: (text) => withUrl({ custom_headers: { [`X${text}`]: 'v' } }) },
    { field: 'include_tags[0]', make: (text) => withUrl({ include_tags: [text] }) },
    { field: 'exclude_tags[0]', make: (text) => withUrl({ exclude_tags: [text] }) },
    { field: 'block_resources[0]', make: (text) => withUrl({ block_resources: [text] }) },
    { field: 'actions[0].selector', make: (text) => withUrl({ js_render: true, actions: [{ type: 'click', selector: text }] }) },
    { field: 'extract.title', make: (text) => withUrl({ extract: { title: text } }) },
    { field: 'network_capture.url_pattern', make: (text) => withUrl({ js_render: true, network_capture: { url_pattern: text } }) },
  ];
}

function batchSlots(url: string, webhookId: string): StringSlot[] {
  return [
    { field: 'name', make: (text) => ({ name: text, urls: [url] }) },
    { field: 'webhook_endpoint_id', make: (text) => ({ webhook_endpoint_id: `${webhookId}${text}`, urls: [url] }) },
    { field: 'urls[0]', make: (text) => ({ urls: [`${url}${text}`] }) },
    { field: 'items[0].external_id', make: (text) => ({ items: [{ url, external_id: text }] }) },
    { field: 'items[0].url', make: (text) => ({ items: [{ url: `${url}${text}` }] }) },
    { field: 'items[0].sticky_key', make: (text) => ({ items: [{ url, sticky_key: text }] }) },
    { field: 'sticky_key', make: (text) => ({ sticky_key: text, urls: [url] }) },
    { field: 'extract_preset', make: (text) => ({ extract_preset: text, urls: [url] }) },
  ];
}

function sessionSlots(): StringSlot[] {
  const cookie = (extra: Record<string, unknown>) => ({ session_context: { cookies: [{ name: 'n', value: 'v', domain: 'example.com', ...extra }] } });
  return [
    { field: 'region_pool', make: (text) => ({ region_pool: text }) },
    { field: 'sticky_key', make: (text) => ({ sticky_key: text }) },
    { field: 'engine', make: (text) => ({ engine: text }) },
    { field: 'session_context.cookies[0].name', make: (text) => cookie({ name: text }) },
    { field: 'session_context.cookies[0].value', make: (text) => cookie({ value: text }) },
    { field: 'session_context.cookies[0].domain', make: (text) => cookie({ domain: text }) },
    { field: 'session_context.cookies[0].path', make: (text) => cookie({ path: text }) },
    { field: 'session_context.local_storage.https://example.com.k', make: (text) => ({ session_context: { local_storage: { 'https://example.com': { k: text } } } }) },
    { field: 'session_context.session_storage', make: (text) => ({ session_context: { session_storage: { [`https://example.com${text}`]: { k: 'v' } } } }) },
    { field: 'session_context.indexed_db.db', make: (text) => ({ session_context: { indexed_db: { db: { store: text } } } }) },
    { field: 'fingerprint.ua', make: (text) => ({ engine: 'camoufox', fingerprint: { ua: text } }) },
  ];
}

/** Body routes, with a valid body each (for the prototype-key and nesting forms). */
function bodyRoutes(f: Fixtures): Array<{ method: string; path: string; valid: Record<string, unknown>; slots: StringSlot[] }> {
  return [
    { method: 'POST', path: '/v1/scrape', valid: { url: f.targetUrl }, slots: scrapeSlots(f.targetUrl) },
    { method: 'POST', path: '/v1/batch', valid: { urls: [f.targetUrl] }, slots: batchSlots(f.targetUrl, f.webhookId) },
    {
      method: 'POST',
      path: `/v1/batch/${f.jobId}/items`,
      valid: { items: [{ url: f.targetUrl }] },
      slots: batchSlots(f.targetUrl, f.webhookId).filter((slot) => slot.field.startsWith('items') || slot.field === 'urls[0]'),
    },
    { method: 'POST', path: '/v1/sessions', valid: {}, slots: sessionSlots() },
    {
      method: 'POST',
      path: '/v1/webhooks',
      valid: { url: 'https://hooks.example.com/x' },
      slots: [
        { field: 'url', make: (text) => ({ url: `https://hooks.example.com/${text}` }) },
        { field: 'secret', make: (text) => ({ url: 'https://hooks.example.com/x', secret: `0123456789abcdef${text}` }) },
      ],
    },
    ...['close', 'cancel', 'retry'].map((action) => ({ method: 'POST', path: `/v1/batch/${f.jobId}/${action}`, valid: {}, slots: [] })),
  ];
}

export function bodyProbes(f: Fixtures): Probe[] {
  const probes: Probe[] = [];
  for (const route of bodyRoutes(f)) {
    const at = `${route.method} ${route.path.replace(f.jobId, '{id}')}`;
    for (const slot of route.slots) {
      for (const bad of BAD_TEXTS) {
        probes.push({ label: `${at} ${slot.field} ${bad.name}`, method: route.method, path: route.path, body: JSON.stringify(slot.make(bad.text)), field: slot.field, logs: true });
      }
    }
    for (const key of PROTOTYPE_KEYS) {
      probes.push({ label: `${at} top-level ${key}`, method: route.method, path: route.path, body: objectWith(route.valid, key, '{"polluted":true}'), field: key, logs: true });
    }
    probes.push({ label: `${at} 100k-deep nesting`, method: route.method, path: route.path, body: objectWith(route.valid, 'deep', nested(100_000)), field: 'nest', logs: true });
    probes.push({ label: `${at} NUL in a key`, method: route.method, path: route.path, body: objectWith(route.valid, 'k\u0000', '1'), field: 'k\\u0000', logs: true });
  }
  const items = (raw: string) => `{"items":[${raw}]}`;
  for (const key of PROTOTYPE_KEYS) {
    for (const path of ['/v1/batch', `/v1/batch/${f.jobId}/items`]) {
      probes.push({ label: `POST ${path.replace(f.jobId, '{id}')} items[0].${key}`, method: 'POST', path, body: items(objectWith({ url: f.targetUrl }, key, '{"js_render":true}')), field: `items[0].${key}`, logs: true });
    }
    probes.push({ label: `POST /v1/scrape custom_headers.${key}`, method: 'POST', path: '/v1/scrape', body: `{"url":${JSON.stringify(f.targetUrl)},"custom_headers":{${JSON.stringify(key)}:"x"}}`, field: `custom_headers.${key}`, logs: true });
  }
  return probes;
}

/** Query and path forms: %00 in every known parameter and every id in a path. */
export function urlProbes(f: Fixtures): Probe[] {
  const queryRoutes: Array<{ path: string; names: string[]; logs?: boolean; method?: string }> = [
    { path: '/v1/scrape', names: ['url', 'session_id', 'sticky_key', 'extract_preset', 'wait_for', 'proxy', 'method'] },
    { path: '/v1/requests', names: ['status', 'before', 'before_id', 'limit', 'all_projects', 'only_errors'], logs: false },
    { path: '/v1/batch', names: ['status', 'cursor', 'limit'] },
    { path: `/v1/batch/${f.jobId}/results`, names: ['status', 'cursor', 'limit'] },
    { path: '/v1/sessions', names: ['status', 'cursor', 'limit'] },
    { path: `/v1/sessions/${f.sessionId}`, names: ['force'], method: 'DELETE' },
    { path: `/v1/sessions/${f.sessionId}/release`, names: ['force'], method: 'POST' },
    { path: '/v1/usage', names: ['environment', 'at'] },
    { path: '/v1/usage/summary', names: ['environment', 'from', 'to', 'group_by'] },
    { path: '/v1/usage/reconciliation', names: ['environment', 'at'] },
    { path: '/v1/webhooks', names: [] },
    { path: '/v1/workers', names: [] },
    { path: '/v1/browser', names: [] },
    { path: `/v1/batch/${f.jobId}`, names: [] },
    { path: `/v1/batch/${f.jobId}/tasks/0/content`, names: [] },
    { path: `/v1/batch/${f.jobId}/items`, names: [], method: 'POST' },
    { path: `/v1/batch/${f.jobId}/close`, names: [], method: 'POST' },
    { path: `/v1/sessions/${f.sessionId}/context`, names: [] },
    { path: `/v1/webhooks/${f.webhookId}`, names: [], method: 'DELETE' },
  ];
  const probes: Probe[] = [];
  for (const route of queryRoutes) {
    const method = route.method ?? 'GET';
    const at = `${method} ${route.path.replace(f.jobId, '{id}').replace(f.sessionId, '{id}').replace(f.webhookId, '{id}')}`;
    for (const name of [...route.names, 'x']) {
      probes.push({ label: `${at} ?${name}=%00`, method, path: `${route.path}?${name}=a%00b`, field: name, logs: route.logs ?? true });
    }
    probes.push({ label: `${at} ?__proto__=x`, method, path: `${route.path}?__proto__=x`, field: '__proto__', logs: route.logs ?? true });
  }
  const deep = encodeURIComponent('['.repeat(2000) + ']'.repeat(2000));
  probes.push({ label: 'GET /v1/scrape ?extract= 2,000-deep JSON', method: 'GET', path: `/v1/scrape?url=${encodeURIComponent(f.targetUrl)}&extract=${deep}`, field: 'extract', logs: true });
  probes.push({ label: 'GET /v1/scrape ?custom_headers={"__proto__":…}', method: 'GET', path: `/v1/scrape?url=${encodeURIComponent(f.targetUrl)}&custom_headers=${encodeURIComponent('{"__proto__":{"a":"b"}}')}`, field: 'custom_headers.__proto__', logs: true });
  const pathIds = [
    ['DELETE', '/v1/webhooks/{}'],
    ['GET', '/v1/requests/{}'],
    ['GET', '/v1/batch/{}'],
    ['GET', '/v1/batch/{}/results'],
    ['POST', '/v1/batch/{}/cancel'],
    ['GET', `/v1/batch/${f.jobId}/tasks/{}/content`],
    ['GET', '/v1/sessions/{}'],
    ['GET', '/v1/sessions/{}/context'],
    ['DELETE', '/v1/sessions/{}'],
    ['POST', '/v1/sessions/{}/release'],
  ];
  for (const [method, template] of pathIds) {
    const label = `${method} ${template.replace(f.jobId, '{job}')} id %00`;
    probes.push({ label, method, path: template.replace('{}', '01ARZ3NDEKTSV4RRFFQ69G5FA%00'), field: 'path', logs: !template.startsWith('/v1/requests') });
  }
  return probes;
}
