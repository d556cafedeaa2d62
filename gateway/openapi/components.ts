import { z } from 'zod';
import { DiagnosticsSchema, ERROR_CATALOGUE, type ErrorCode } from '../../lib/errors/index.js';
import type { Access, JsonSchema } from './types.js';

/** A zod schema as JSON Schema, read on its input side: what a caller sends, before transforms. */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
  return rest;
}

/** A zod schema as JSON Schema on its output side: what the gateway answers. */
export function outputSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', target: 'draft-2020-12' });
  return rest;
}

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const jsonContent = (schema: JsonSchema) => ({ 'application/json': { schema } });
/** The header list of answers that describe account state. */
export const NO_STORE = ['Cache-Control'];

const ALL_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** The problem+json body every error carries (lib/errors/problem.ts builds it). */
const ProblemSchema: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details. `status`, `title` and `retryable` come from the error catalogue for `code`.',
  required: ['type', 'title', 'status', 'code', 'retryable', 'doc_url', 'target_status'],
  properties: {
    type: { type: 'string', format: 'uri', description: 'Link to the code\'s entry in the error reference (DOCS_URL/errors#FAMILY_NAME).' },
    title: { type: 'string' },
    status: { type: 'integer', description: 'The HTTP status of this answer.' },
    code: { type: 'string', enum: ALL_CODES },
    detail: { type: 'string', description: 'What was wrong, naming the field for a parameter error.' },
    retryable: { type: 'boolean', description: 'Whether the same request may succeed later.' },
    doc_url: { type: 'string', format: 'uri' },
    request_id: { type: 'string', description: 'The X-Request-Id of this answer.' },
    instance: { type: 'string', description: 'The request path.' },
    target_status: { type: ['integer', 'null'], description: 'The target site\'s HTTP status, when one answered.' },
    retry_after_seconds: { type: 'integer', description: 'Also sent as Retry-After.' },
    warnings: { type: 'array', items: { type: 'string' } },
    diagnostics: outputSchemaOf(DiagnosticsSchema),
  },
};

/** Response headers by name; operations list the ones they send. */
export const HEADERS: Record<string, { description: string; schema: JsonSchema }> = {
  'X-Request-Id': { description: 'ULID of this request, usable with GET /v1/requests/{id}. On every answer.', schema: { type: 'string' } },
  'X-Credits-Reserved': { description: 'Credits held for a remote-browser connection: every started minute of its TTL (GET /v1/browser).', schema: { type: 'number' } },
  'X-Credits-Charged': { description: 'Credits this request cost (0 unless a scrape succeeded and was billed).', schema: { type: 'number' } },
  'X-RateLimit-Limit': { description: 'Requests per second the organization may send.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Tokens left in the current second.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying (limits, unavailable dependencies).', schema: { type: 'integer' } },
  'Cache-Control': { description: 'Answers that describe account state are `no-store`.', schema: { type: 'string' } },
  'X-Target-Status': { description: 'The target site\'s HTTP status.', schema: { type: 'integer' } },
  'X-Engine': { description: 'The engine that produced the answer.', schema: { type: 'string' } },
  'Cache-State': { description: '`hit`, `miss` or `bypass`; a hit costs 0 credits.', schema: { type: 'string' } },
  'X-Warning': { description: 'Warnings about ignored or adjusted parameters (repeatable).', schema: { type: 'string' } },
  'Concurrency-Limit': { description: 'Scrapes the organization may run at once.', schema: { type: 'integer' } },
  'Concurrency-Remaining': { description: 'Concurrency slots left after this one.', schema: { type: 'integer' } },
  'X-Request-Cost': { description: 'Credits held for the items this call added.', schema: { type: 'number' } },
  'X-Next-Cursor': { description: 'Cursor of the next results page, when there is one.', schema: { type: 'string' } },
  Link: { description: '`rel="next"` link to the next results page, when there is one.', schema: { type: 'string' } },
  Allow: { description: 'Methods the path serves (on a method it does not).', schema: { type: 'string' } },
};

/** Headers on every answer of an access level (added by middleware before any route runs). */
export function commonHeaders(access: Access): string[] {
  if (access === 'public') return ['X-Request-Id'];
  return ['X-Request-Id', 'X-Credits-Charged', 'X-RateLimit-Limit', 'X-RateLimit-Remaining'];
}

/** Codes any route of an access level can answer, from the middleware in front of it. */
export function commonErrors(access: Access, hasBody: boolean): ErrorCode[] {
  const codes: ErrorCode[] = ['ERR::REQUEST::INVALID', 'ERR::INTERNAL::ERROR'];
  if (hasBody) codes.push('ERR::REQUEST::PAYLOAD_TOO_LARGE');
  if (access === 'public') return codes;
  codes.push(
    'ERR::AUTH::MISSING_KEY',
    'ERR::AUTH::INVALID_KEY',
    'ERR::AUTH::REVOKED_KEY',
    'ERR::AUTH::EXPIRED_KEY',
    'ERR::AUTH::FORBIDDEN',
    'ERR::LIMIT::RATE_LIMITED',
  );
  if (access !== 'key') codes.push('ERR::AUTH::INSUFFICIENT_SCOPE');
  return codes;
}

/** One response per HTTP status, naming the catalogue codes behind it. */
export function errorResponses(codes: ErrorCode[], browserRoute = false): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = browserRoute && code === 'ERR::ENGINE::UNAVAILABLE' ? 501 : ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    const list = group.map((code) => `\`${code}\` (${ERROR_CATALOGUE[code].title}${ERROR_CATALOGUE[code].retryable ? ', retryable' : ''})`);
    responses[String(status)] = {
      description: `Problem: ${list.join('; ')}.`,
      headers: headerRefs(group.some((code) => ERROR_CATALOGUE[code].retryable) ? ['X-Request-Id', 'Retry-After'] : ['X-Request-Id']),
      content: {
        'application/problem+json': {
          schema: { allOf: [ref('Problem'), { properties: { code: { enum: group } } }] },
        },
      },
      'x-error-codes': group,
    };
  }
  return responses;
}

export function headerRefs(names: string[]): Record<string, unknown> {
  return Object.fromEntries([...new Set(names)].map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

export function components(schemas: Record<string, JsonSchema>): Record<string, unknown> {
  return {
    securitySchemes: {
      bearerKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'An API key in `Authorization: Bearer <key>`. Keys in the query string are ignored, except on GET /v1/browser.',
      },
    },
    headers: Object.fromEntries(Object.entries(HEADERS).map(([name, header]) => [name, header])),
    schemas: { Problem: ProblemSchema, ...schemas },
  };
}
