import { Validator } from '@seriousme/openapi-schema-validator';
import type { Express } from 'express';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../gateway/app.js';
import { OPERATIONS } from '../../gateway/openapi/document.js';
import { createApiKey } from '../../lib/store/accounts.js';
import { authed, jsonPost } from '../support/embedded.js';
import { embeddedForSuite } from '../support/suite-service.js';

type Document = {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
};
type Schema = { $ref?: string; properties?: Record<string, unknown> };

const service = embeddedForSuite({ engines: ['fetch'], env: { DEFAULT_RATE_LIMIT_PER_SECOND: '100000' } });
let key: string;
let document: Document;

beforeAll(async () => {
  key = (await createApiKey(service.db, { projectId: service.projectId, name: 'every-scope', environment: 'live', scopes: ['scrape', 'batch', 'sessions', 'browser', 'read'] })).secret;
  const response = await fetch(`${service.url}/v1/openapi.json`);
  expect(response.status).toBe(200);
  document = (await response.json()) as Document;
  // An open job, so the routes under /v1/batch/{batchID} read their body and query instead of answering 404.
  const job = await fetch(`${service.url}/v1/batch`, jsonPost(key, { urls: ['http://127.0.0.1:9/'], open: true }));
  expect(job.status).toBe(202);
  SAMPLE_PATH_VALUES.batchID = ((await job.json()) as { id: string }).id;
});

/** Every (method, path) the Express app routes, in OpenAPI form; `.all()` fallbacks (405-style answers) are not operations. */
function appRoutes(app: Express): { found: Set<string>; mounted: unknown[] } {
  const found = new Set<string>();
  const mounted: unknown[] = [];
  type Layer = { route?: { path: string; stack: { method?: string; handle: { name: string } }[] }; handle: { stack?: Layer[] }; slash?: boolean };
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const handler of layer.route.stack) {
          if (!handler.method || handler.method === '_all' || handler.handle.name === 'refuseMethod') continue;
          found.add(`${handler.method.toUpperCase()} ${(prefix + layer.route.path).replace(/:(\w+)/g, '{$1}')}`);
        }
      } else if (layer.handle.stack && layer.slash) {
        walk(layer.handle.stack, prefix);
      } else if (layer.handle.stack) {
        mounted.push(layer);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return { found, mounted };
}

const documented = () =>
  new Set(Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`)));

const SAMPLE_PATH_VALUES: Record<string, string> = { batchID: '01HZZZZZZZZZZZZZZZZZZZZZZZ', sessionId: '01HZZZZZZZZZZZZZZZZZZZZZZZ', id: '01HZZZZZZZZZZZZZZZZZZZZZZZ', seq: '0' };
const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => SAMPLE_PATH_VALUES[name]);

/** True when the answer is the 400 that names `field` as unknown, on any route's wording. */
async function refusedAsUnknown(response: Response, field: string): Promise<boolean> {
  if (response.status !== 400) return false;
  const detail = String(((await response.json()) as { detail?: string }).detail ?? '');
  const named = [`${field}: unknown parameter`, `"${field}" is not a parameter`, `${field}: is not a parameter`];
  return detail.split('; ').some((line) => named.some((wording) => line.startsWith(wording) || line.startsWith(`Query parameter ${wording}`)));
}

function bodySchema(operation: Document['paths'][string][string]): Schema | null {
  const schema = operation.requestBody?.content['application/json']?.schema;
  if (!schema) return null;
  return schema.$ref ? document.components.schemas[schema.$ref.split('/').pop() as string] : schema;
}

describe('the OpenAPI document', () => {
  it('is served without a key, with X-Request-Id, and validates as OpenAPI 3.1', async () => {
    const response = await fetch(`${service.url}/v1/openapi.json`);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9A-Z]{26}$/);
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as Parameters<Validator['validate']>[0]);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes every route the gateway serves, and no route it does not', () => {
    const app = createApp(service.gateway.context, { draining: () => false });
    const { found: routes, mounted } = appRoutes(app);
    expect(routes.size).toBeGreaterThan(25);
    // Routers are mounted at the root with full paths, but for the reference page's (under its prefix).
    expect(mounted).toHaveLength(1);
    const described = documented();
    // The reference page is a mounted router, not a route: it is checked over HTTP below.
    described.delete('GET /v1/reference/');
    expect([...routes].filter((route) => !described.has(route)), 'routes without a description').toEqual([]);
    expect([...described].filter((route) => !routes.has(route)), 'descriptions without a route').toEqual([]);
    expect(OPERATIONS.length).toBe(described.size + 1);
  });

  it('names only query parameters the routes accept (and the check can fail)', async () => {
    let checked = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const names = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        if (names.length === 0) continue;
        for (const name of names) {
          const response = await fetch(`${service.url}${concrete(path)}?${name}=%7B%7D`, authed(key, { method: method.toUpperCase() }));
          expect(await refusedAsUnknown(response, name), `${method} ${path} ?${name}`).toBe(false);
          checked += 1;
        }
        const control = await fetch(`${service.url}${concrete(path)}?zz_undocumented=1`, authed(key, { method: method.toUpperCase() }));
        expect(await refusedAsUnknown(control, 'zz_undocumented'), `${method} ${path} refuses an unknown parameter`).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('names only body fields the routes accept (and the check can fail)', async () => {
    let checked = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const schema = bodySchema(operation);
        if (!schema?.properties) continue;
        const send = (body: unknown) =>
          fetch(`${service.url}${concrete(path)}`, authed(key, { method: method.toUpperCase(), headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
        for (const field of Object.keys(schema.properties)) {
          // An object is the wrong type for nearly every field: the call fails validation and creates nothing.
          expect(await refusedAsUnknown(await send({ [field]: { zz_probe: 1 } }), field), `${method} ${path} {${field}}`).toBe(false);
          checked += 1;
        }
        expect(await refusedAsUnknown(await send({ zz_undocumented: 1 }), 'zz_undocumented'), `${method} ${path} refuses an unknown field`).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(60);
  });

  it('documents every member of the job objects GET /v1/batch answers, kind included', async () => {
    const listed = (await (await fetch(`${service.url}/v1/batch`, authed(key))).json()) as { batches: Record<string, unknown>[] };
    expect(listed.batches.length).toBeGreaterThan(0);
    const schema = document.components.schemas.BatchJob as Schema & { required: string[]; properties: Record<string, { enum?: string[] }> };
    for (const job of listed.batches) expect(Object.keys(job).filter((member) => !(member in schema.properties))).toEqual([]);
    expect(listed.batches.map((job) => job.kind)).toContain('batch');
    expect(schema.required).toContain('kind');
    expect(schema.properties.kind.enum).toEqual(['batch', 'crawl']);
  });

  it('gives every error response the problem+json schema and catalogue codes', () => {
    for (const methods of Object.values(document.paths)) {
      for (const operation of Object.values(methods) as { responses: Record<string, { content?: Record<string, unknown>; 'x-error-codes'?: string[] }> }[]) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) < 400 || response['x-error-codes'] === undefined) continue;
          expect(Object.keys(response.content ?? {})).toEqual(['application/problem+json']);
          expect(response['x-error-codes'].length).toBeGreaterThan(0);
        }
      }
    }
  });
});

describe('the rendered reference', () => {
  it('serves a page, the renderer and the document from this server, without a key', async () => {
    const redirect = await fetch(`${service.url}/v1/reference`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/v1/reference/');
    const page = await fetch(`${service.url}/v1/reference/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'reference.js', 'openapi.json']) {
      const response = await fetch(`${service.url}/v1/reference/${asset}`);
      expect(response.status, asset).toBe(200);
    }
    const served = await (await fetch(`${service.url}/v1/reference/openapi.json`)).json();
    expect(served).toEqual(document);
    expect((await fetch(`${service.url}/v1/reference/package.json`)).status).toBe(404);
  });
});
