import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../lib/store/accounts.js';
import { startGeneratedSite, urlset } from '../crawl/generated-site.js';
import { authed, startEmbedded } from '../support/embedded.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { until } from '../support/poll.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { creditTotals } from '../support/ledger.js';
import { embeddedForSuite } from '../support/suite-service.js';

let site: TargetSite;
let model: ModelServer;
const clients: Client[] = [];

beforeAll(async () => {
  [site, model] = await Promise.all([startTargetSite(), startModelServer()]);
});
// After-hooks run last registered first: the clients closed, the service stopped, then the site and the model.
afterAll(async () => {
  await Promise.all([site?.close(), model?.close()]);
});
const service = embeddedForSuite(() => ({ engines: ['fetch'], env: { AI_BASE_URL: model.baseUrl, AI_MODEL: 'm', BATCH_DISPATCH_INTERVAL_MS: '50', DEFAULT_RATE_LIMIT_PER_SECOND: '1000' } }));
afterAll(async () => {
  for (const client of clients) await client.close();
});

async function httpClient(secret = service.secret): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }));
  clients.push(client);
  return client;
}

/** `trawler mcp` as an MCP client configuration would start it: the compiled CLI, the address and key in its environment. */
async function stdioClient(apiUrl = service.url): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(process.cwd(), 'dist/bin/trawler.js'), 'mcp'],
      env: { PATH: process.env.PATH ?? '', TRAWLER_API_URL: apiUrl, TRAWLER_API_KEY: service.secret },
      stderr: 'pipe',
    }),
  );
  clients.push(client);
  return client;
}

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const spent = async () => (await creditTotals(service.db, 'all')).spent;

describe.each([
  ['Streamable HTTP at /v1/mcp', () => httpClient()],
  ['stdio (trawler mcp)', () => stdioClient()],
])('the MCP server over %s, with the official SDK client', (_transport, connect) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });

  it('lists the tools with the API\'s own input schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['scrape', 'extract', 'batch_scrape', 'batch_status', 'batch_results', 'crawl', 'crawl_status', 'map', 'session_create', 'session_get', 'session_list', 'session_release']);
    const scrape = tools.find((t) => t.name === 'scrape')!;
    expect(scrape.inputSchema.required).toEqual(['url']);
    const properties = scrape.inputSchema.properties as Record<string, unknown>;
    expect(Object.keys(properties)).toEqual(expect.arrayContaining(['url', 'js_render', 'response_format', 'extract', 'ai_extract', 'session_id']));
    // The parameter's own schema, as the API validates it: ai_extract's two fields, strict.
    expect(JSON.stringify(properties.ai_extract)).toMatch(/"prompt".*"schema".*"additionalProperties":false/);
  });

  it('scrapes as markdown by default, with the charge in _meta', async () => {
    const before = await spent();
    const result = (await client.callTool({ name: 'scrape', arguments: { url: `${site.origin}/static/article.html`, cache: false } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain('# The article title');
    expect(text(result)).not.toContain('<p>');
    expect(result._meta).toMatchObject({ 'dev.trawler/credits_charged': 1, 'dev.trawler/target_status': 200, 'dev.trawler/engine': 'fetch' });
    expect((await spent()) - before).toBe(1_000_000);
  });

  it('gives another format on request', async () => {
    const result = (await client.callTool({ name: 'scrape', arguments: { url: `${site.origin}/`, response_format: 'html', cache: false } })) as CallToolResult;
    expect(text(result)).toContain('<h1>Hello from the target</h1>');
  });

  it('extracts with selector rules and with the model', async () => {
    let result = (await client.callTool({ name: 'extract', arguments: { url: `${site.origin}/static/article.html`, extract: { heading: 'h1' }, cache: false } })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ status: 200, data: { heading: 'The article title' } });
    result = (await client.callTool({ name: 'extract', arguments: { url: `${site.origin}/static/article.html`, ai_extract: { prompt: 'The title' }, cache: false } })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ data: { title: 'The article title' } });
    expect(result._meta).toMatchObject({ 'dev.trawler/credits_charged': 5 });
  });

  it('answers errors as tool errors carrying the problem code and retryable', async () => {
    let result = (await client.callTool({ name: 'scrape', arguments: { url: `${site.origin}/`, bogus: 1 } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'ERR::REQUEST::INVALID_PARAMETER', retryable: false, status: 400 });
    expect(text(result)).toMatch(/^ERR::REQUEST::INVALID_PARAMETER: .*bogus/);
    result = (await client.callTool({ name: 'scrape', arguments: { url: `${site.origin}/challenge/cloudflare`, cache: false } })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ code: 'ERR::UPSTREAM::CHALLENGE', retryable: true, status: 502 });
    result = (await client.callTool({ name: 'extract', arguments: { url: `${site.origin}/` } })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ code: 'ERR::REQUEST::MISSING_PARAMETER', retryable: false });
  });

  it('runs a batch: start, status, paged results', async () => {
    const started = (await client.callTool({ name: 'batch_scrape', arguments: { urls: [`${site.origin}/`, `${site.origin}/static/article.html`], cache: false } })) as CallToolResult;
    const id = (started.structuredContent as { id: string }).id;
    expect(id).toMatch(/^[0-9A-Z]{26}$/);
    await until(
      async () => ((await client.callTool({ name: 'batch_status', arguments: { batch_id: id } })) as CallToolResult).structuredContent as { status: string },
      (job) => job.status === 'completed',
    );
    const first = (await client.callTool({ name: 'batch_results', arguments: { batch_id: id, limit: 1 } })) as CallToolResult;
    const page = first.structuredContent as { items: Array<{ seq: number; status: string }>; next_cursor: string | null };
    expect(page.items).toMatchObject([{ seq: 0, status: 'succeeded' }]);
    expect(page.next_cursor).toBeTruthy();
    const second = (await client.callTool({ name: 'batch_results', arguments: { batch_id: id, cursor: page.next_cursor } })) as CallToolResult;
    expect(second.structuredContent).toMatchObject({ items: [{ seq: 1 }], next_cursor: null });
    const missing = (await client.callTool({ name: 'batch_status', arguments: { batch_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' } })) as CallToolResult;
    expect(missing.structuredContent).toMatchObject({ code: 'ERR::REQUEST::NOT_FOUND', status: 404 });
  });

  it('creates, reads, lists and releases a session', async () => {
    const created = (await client.callTool({ name: 'session_create', arguments: { engine: 'fetch' } })) as CallToolResult;
    const id = (created.structuredContent as { id: string }).id;
    expect(created.structuredContent).toMatchObject({ engine: 'fetch', status: 'active' });
    expect(((await client.callTool({ name: 'session_get', arguments: { session_id: id } })) as CallToolResult).structuredContent).toMatchObject({ id });
    const list = ((await client.callTool({ name: 'session_list', arguments: {} })) as CallToolResult).structuredContent as { sessions: Array<{ id: string }> };
    expect(list.sessions.map((s) => s.id)).toContain(id);
    const released = (await client.callTool({ name: 'session_release', arguments: { session_id: id } })) as CallToolResult;
    expect(released.structuredContent).toMatchObject({ id, status: 'released' });
  });
});

describe('crawl and map over Streamable HTTP, on a generated loopback site', () => {
  it('lists crawl and map with the routes\' own input schemas', async () => {
    const { tools } = await (await httpClient()).listTools();
    const crawl = tools.find((t) => t.name === 'crawl')!;
    expect(crawl.inputSchema.required).toEqual(['url']);
    expect(Object.keys(crawl.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['url', 'limit', 'max_depth', 'include_paths', 'sitemap', 'scrape', 'concurrency']));
    expect(tools.find((t) => t.name === 'map')!.inputSchema.properties).toHaveProperty('limit');
    expect(tools.find((t) => t.name === 'crawl_status')!.inputSchema.required).toEqual(['crawl_id']);
  });

  it('crawls a site: start, status, then its pages a results page at a time', async () => {
    const generated = await startGeneratedSite({ pages: { '/': ['/a', '/b'], '/a': ['/', '/c'], '/b': [], '/c': [] } });
    try {
      const client = await httpClient();
      const before = await spent();
      const started = (await client.callTool({ name: 'crawl', arguments: { url: `${generated.origin}/`, sitemap: 'skip', scrape: { cache: false } } })) as CallToolResult;
      expect(started.isError, text(started)).toBeFalsy();
      const id = (started.structuredContent as { id: string }).id;
      expect(started.structuredContent).toMatchObject({ id: expect.stringMatching(/^[0-9A-Z]{26}$/), crawl: { url: `${generated.origin}/` } });
      const done = await until(
        async () => ((await client.callTool({ name: 'crawl_status', arguments: { crawl_id: id, limit: 2 } })) as CallToolResult).structuredContent as Record<string, unknown>,
        (crawl) => crawl.status === 'completed',
      );
      expect(done).toMatchObject({ id, crawl: { queued: 4 } });
      const first = done.results as { items: Array<{ url: string; status: string }>; next_cursor: string | null };
      expect(first.items).toHaveLength(2);
      expect(first.next_cursor).toBeTruthy();
      const second = ((await client.callTool({ name: 'crawl_status', arguments: { crawl_id: id, cursor: first.next_cursor } })) as CallToolResult).structuredContent as typeof done;
      const rest = second.results as typeof first;
      expect(rest.next_cursor).toBeNull();
      const urls = [...first.items, ...rest.items].map((item) => item.url).sort();
      expect(urls).toEqual(['/', '/a', '/b', '/c'].map((path) => `${generated.origin}${path}`));
      expect([...first.items, ...rest.items].every((item) => item.status === 'succeeded')).toBe(true);
      expect((await spent()) - before).toBe(4_000_000);
      const missing = (await client.callTool({ name: 'crawl_status', arguments: { crawl_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' } })) as CallToolResult;
      expect(missing.structuredContent).toMatchObject({ code: 'ERR::REQUEST::NOT_FOUND', retryable: false, status: 404 });
    } finally {
      await generated.close();
    }
  });

  it('maps a site from its sitemap and links, charging nothing', async () => {
    const generated = await startGeneratedSite({ robots: 'Sitemap: {origin}/sitemap.xml\n', sitemaps: { '/sitemap.xml': urlset(['/from-sitemap']) }, pages: { '/': ['/linked'], '/linked': [], '/from-sitemap': [] } });
    try {
      const client = await httpClient();
      const before = await spent();
      const result = (await client.callTool({ name: 'map', arguments: { url: `${generated.origin}/` } })) as CallToolResult;
      expect(result.isError, text(result)).toBeFalsy();
      expect((result.structuredContent as { links: string[] }).links).toEqual(expect.arrayContaining([`${generated.origin}/linked`, `${generated.origin}/from-sitemap`]));
      expect((await spent()) - before).toBe(0);
    } finally {
      await generated.close();
    }
  });

  it('answers a bad crawl as a tool error naming the field, and checks each tool\'s scope', async () => {
    const client = await httpClient();
    const bad = (await client.callTool({ name: 'crawl', arguments: { url: 'http://127.0.0.1/', bogus: 1 } })) as CallToolResult;
    expect(bad.structuredContent).toMatchObject({ code: 'ERR::REQUEST::INVALID_PARAMETER', retryable: false, status: 400 });
    expect(text(bad)).toContain('bogus');
    const { secret: scrapeOnly } = await createApiKey(service.db, { projectId: service.projectId, name: 'scrape only', environment: 'live', scopes: ['scrape'] });
    const scraper = await httpClient(scrapeOnly);
    for (const name of ['crawl', 'crawl_status']) {
      const refused = (await scraper.callTool({ name, arguments: { url: 'http://127.0.0.1/', crawl_id: 'x' } })) as CallToolResult;
      expect(refused.structuredContent).toMatchObject({ code: 'ERR::AUTH::INSUFFICIENT_SCOPE', retryable: false, status: 403 });
      expect(text(refused)).toContain('batch');
    }
    const { secret: batchOnly } = await createApiKey(service.db, { projectId: service.projectId, name: 'batch only, map', environment: 'live', scopes: ['batch'] });
    const map = (await (await httpClient(batchOnly)).callTool({ name: 'map', arguments: { url: 'http://127.0.0.1/' } })) as CallToolResult;
    expect(map.structuredContent).toMatchObject({ code: 'ERR::AUTH::INSUFFICIENT_SCOPE', status: 403 });
    expect(text(map)).toContain('scrape');
  });
});

describe('scopes and keys on /v1/mcp', () => {
  it('lets a key list the tools but refuses a tool outside its scopes, naming the scope', async () => {
    const { secret } = await createApiKey(service.db, { projectId: service.projectId, name: 'batch only', environment: 'live', scopes: ['batch'] });
    const client = await httpClient(secret);
    expect((await client.listTools()).tools.length).toBe(12);
    const result = (await client.callTool({ name: 'scrape', arguments: { url: `${site.origin}/` } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'ERR::AUTH::INSUFFICIENT_SCOPE', retryable: false, status: 403 });
    expect(text(result)).toContain('scrape');
    const sessions = (await client.callTool({ name: 'session_list', arguments: {} })) as CallToolResult;
    expect(sessions.structuredContent).toMatchObject({ code: 'ERR::AUTH::INSUFFICIENT_SCOPE' });
  });

  it('answers 401 without a key, and 400 with Allow: POST to GET', async () => {
    const post = await fetch(`${service.url}/v1/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(post.status).toBe(401);
    expect(((await post.json()) as { code: string }).code).toBe('ERR::AUTH::MISSING_KEY');
    const get = await fetch(`${service.url}/v1/mcp`, authed(service.secret));
    expect(get.status).toBe(400);
    expect(get.headers.get('allow')).toBe('POST');
  });
});

describe('trawler mcp without a gateway to reach', () => {
  it('answers a tool call with a retryable tool error', async () => {
    // Port 9 (discard) on loopback: nothing listens there.
    const client = await stdioClient('http://127.0.0.1:9');
    const result = (await client.callTool({ name: 'scrape', arguments: { url: `${site.origin}/` } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'ERR::INTERNAL::UNAVAILABLE', retryable: true });
  });
});

describe('without a model', () => {
  it('leaves ai_extract out of the tools', async () => {
    const bare = await startEmbedded({ engines: [] });
    try {
      const client = new Client({ name: 'test-agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${bare.url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${bare.secret}` } } }));
      const { tools } = await client.listTools();
      for (const name of ['scrape', 'extract']) {
        expect(Object.keys(tools.find((t) => t.name === name)!.inputSchema.properties ?? {})).not.toContain('ai_extract');
      }
      await client.close();
    } finally {
      await bare.stop();
    }
  });
});
