import type { ErrorCode } from '../../lib/errors/index.js';
import type { Scope } from '../../lib/store/accounts.js';

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as a plain object. */
export type JsonSchema = Record<string, unknown>;

export interface ParameterSpec {
  name: string;
  in: 'query' | 'path';
  description: string;
  required?: boolean;
  schema?: JsonSchema;
  /** For a query parameter whose value is URL-encoded JSON. */
  jsonContent?: JsonSchema;
  /** Comma-separated list (`style: form, explode: false`). */
  commaList?: boolean;
  example?: unknown;
}

export interface SuccessSpec {
  status: number;
  description: string;
  /** Omitted for a body-less answer (204). */
  content?: Record<string, { schema: JsonSchema }>;
  /** Header names from `HEADERS` (components.ts). */
  headers?: string[];
}

/** How a route is reached: `public` needs no key; `key` any valid key; otherwise the scope named. */
export type Access = 'public' | 'key' | Scope;

/** One operation of the API: what the document says about one method on one path. */
export interface OperationSpec {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI form (`/v1/batch/{batchID}`). */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  parameters?: ParameterSpec[];
  /** `example`: what Swagger UI's Try it out fills in, so it sends a real request rather than placeholders. */
  requestBody?: { required: boolean; description: string; schema: JsonSchema; example?: unknown };
  responses: SuccessSpec[];
  /** Codes this route can answer beyond those every route of its access level can (components.ts). */
  errors: ErrorCode[];
}
