import { accountOperations, ACCOUNT_SCHEMAS } from './account.js';
import { BATCH_JOB_SCHEMA, BATCH_RESULT_LINE_SCHEMA, BATCH_SUBMISSION_SCHEMA, batchOperations } from './batch.js';
import { CRAWL_SCHEMAS, crawlOperations } from './crawl.js';
import { commonErrors, commonHeaders, components, errorResponses, headerRefs } from './components.js';
import { platformOperations } from './platform.js';
import { SCRAPE_ENVELOPE_SCHEMA, SCRAPE_PARAMETERS_SCHEMA, scrapeOperations } from './scrape.js';
import { CREATE_SESSION_SCHEMA, SESSION_SCHEMA, sessionOperations } from './sessions.js';
import type { OperationSpec, ParameterSpec } from './types.js';

export type { OperationSpec } from './types.js';

/** Every operation the gateway serves; test/unit/gateway/openapi checks this against the app's routes. */
export const OPERATIONS: readonly OperationSpec[] = [
  ...platformOperations,
  ...scrapeOperations,
  ...batchOperations,
  ...crawlOperations,
  ...sessionOperations,
  ...accountOperations,
];

const BROWSER_PATH = '/v1/browser';

function parameterObject(parameter: ParameterSpec): Record<string, unknown> {
  const out: Record<string, unknown> = { name: parameter.name, in: parameter.in, description: parameter.description };
  if (parameter.required) out.required = true;
  if (parameter.jsonContent) out.content = { 'application/json': { schema: parameter.jsonContent } };
  else out.schema = parameter.schema ?? { type: 'string' };
  if (parameter.commaList) Object.assign(out, { style: 'form', explode: false });
  if (parameter.example !== undefined) out.example = parameter.example;
  return out;
}

function operationObject(spec: OperationSpec): Record<string, unknown> {
  const shared = commonHeaders(spec.access);
  const responses: Record<string, unknown> = {};
  for (const success of spec.responses) {
    responses[String(success.status)] = {
      description: success.description,
      headers: headerRefs([...shared, ...(success.headers ?? [])]),
      ...(success.content ? { content: success.content } : {}),
    };
  }
  Object.assign(responses, errorResponses([...commonErrors(spec.access, spec.requestBody !== undefined), ...spec.errors], spec.path === BROWSER_PATH));
  const scopeNote = spec.access === 'public' ? 'No authentication.' : spec.access === 'key' ? 'Any valid API key.' : `Needs scope \`${spec.access}\`.`;
  return {
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    description: [spec.description, scopeNote].filter(Boolean).join('\n\n'),
    security: spec.access === 'public' ? [] : [{ bearerKey: [] }],
    ...(spec.access === 'public' || spec.access === 'key' ? {} : { 'x-scope': spec.access }),
    ...(spec.parameters?.length ? { parameters: spec.parameters.map(parameterObject) } : {}),
    ...(spec.requestBody
      ? {
          requestBody: {
            required: spec.requestBody.required,
            description: spec.requestBody.description,
            content: { 'application/json': { schema: spec.requestBody.schema, ...(spec.requestBody.example === undefined ? {} : { example: spec.requestBody.example }) } },
          },
        }
      : {}),
    responses,
  };
}

/**
 * The OpenAPI 3.1 document of the gateway's API, built from the zod schemas that validate requests
 * and the error catalogue. Served at GET /v1/openapi.json and rendered at /v1/reference/.
 */
export function buildOpenApiDocument(options: { version: string; docsUrl: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of OPERATIONS) {
    paths[spec.path] ??= {};
    paths[spec.path][spec.method] = operationObject(spec);
  }
  return {
    openapi: '3.1.1',
    info: {
      title: 'Trawler API',
      version: options.version,
      description:
        'Self-hostable web scraping service. Every /v1 answer carries X-Request-Id; every error is application/problem+json ' +
        `with a code from the catalogue (${options.docsUrl.replace(/\/+$/, '')}/errors). Unknown body fields and query parameters are a 400 naming them.`,
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: '/', description: 'The gateway serving this document' }],
    security: [{ bearerKey: [] }],
    tags: [...new Set(OPERATIONS.map((spec) => spec.tag))].map((name) => ({ name })),
    paths,
    components: components({
      ScrapeParameters: SCRAPE_PARAMETERS_SCHEMA,
      ScrapeEnvelope: SCRAPE_ENVELOPE_SCHEMA,
      BatchSubmission: BATCH_SUBMISSION_SCHEMA,
      BatchJob: BATCH_JOB_SCHEMA,
      BatchResultLine: BATCH_RESULT_LINE_SCHEMA,
      CreateSession: CREATE_SESSION_SCHEMA,
      Session: SESSION_SCHEMA,
      ...ACCOUNT_SCHEMAS,
      ...CRAWL_SCHEMAS,
    }),
  };
}
