import { SESSION_STATUSES } from '../../lib/store/sessions/index.js';
import { CreateSessionSchema } from '../sessions/create-body.js';
import { FORCE_PARAMETERS, MAX_SESSION_PAGE, SESSION_LIST_PARAMETERS } from '../sessions/session-query.js';
import { jsonContent, jsonSchemaOf, NO_STORE, ref } from './components.js';
import type { JsonSchema, OperationSpec, ParameterSpec } from './types.js';

export const CREATE_SESSION_SCHEMA: JsonSchema = { ...jsonSchemaOf(CreateSessionSchema), description: 'Every field is optional (docs/sessions.md).' };

/** The session object (gateway/sessions/present.ts); optional members are omitted when they do not apply. */
export const SESSION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'project_id', 'engine', 'status', 'sticky_key', 'proxy', 'created_at', 'last_used_at', 'expires_at', 'usage_count', 'context'],
  properties: {
    id: { type: 'string' },
    project_id: { type: 'string' },
    engine: { type: 'string' },
    status: { type: 'string', enum: [...SESSION_STATUSES] },
    sticky_key: { type: 'string' },
    proxy: { type: 'object' },
    created_at: { type: 'string', format: 'date-time' },
    last_used_at: { type: ['string', 'null'], format: 'date-time' },
    expires_at: { type: 'string', format: 'date-time' },
    hard_expires_at: { type: 'string', format: 'date-time' },
    released_at: { type: 'string', format: 'date-time' },
    usage_count: { type: 'integer' },
    context: { type: ['object', 'null'], description: 'A summary of the stored context while the session is active.' },
    retired: { type: 'boolean' },
    domain_scores: { type: 'object' },
    fingerprint: { type: 'object' },
    lease: { type: 'object', properties: { holder: { type: 'string' }, expires_at: { type: 'string', format: 'date-time' } } },
    warnings: { type: 'array', items: { type: 'string' } },
  },
};

const SESSION_LIST_DESCRIPTIONS: Record<(typeof SESSION_LIST_PARAMETERS)[number], ParameterSpec> = {
  limit: { name: 'limit', in: 'query', description: `Page size, 1 to ${MAX_SESSION_PAGE} (default 50).`, schema: { type: 'integer', minimum: 1, maximum: MAX_SESSION_PAGE } },
  cursor: { name: 'cursor', in: 'query', description: 'The `next_cursor` of the previous page.', schema: { type: 'string' } },
  status: { name: 'status', in: 'query', description: 'Only sessions in this status.', schema: { type: 'string', enum: [...SESSION_STATUSES] } },
};
const FORCE: Record<(typeof FORCE_PARAMETERS)[number], ParameterSpec> = {
  force: { name: 'force', in: 'query', description: 'true, false, 1, 0, t or f: act even while a request holds the session.', schema: { type: 'string' } },
};
const sessionId: ParameterSpec = { name: 'sessionId', in: 'path', required: true, description: 'Session id (ULID, or a UUID form).', schema: { type: 'string' } };

export const sessionOperations: OperationSpec[] = [
  {
    method: 'post',
    path: '/v1/sessions',
    operationId: 'createSession',
    tag: 'Sessions',
    summary: 'Create a session',
    access: 'sessions',
    requestBody: { required: false, description: 'Optional; an absent body creates a session with the defaults.', schema: ref('CreateSession'), example: {} },
    responses: [{ status: 201, description: 'The new session.', headers: NO_STORE, content: jsonContent(ref('Session')) }],
    errors: [
      'ERR::REQUEST::INVALID_PARAMETER',
      'ERR::REQUEST::INCOMPATIBLE_FLAGS',
      'ERR::REQUEST::CONFLICT',
      'ERR::LIMIT::SESSIONS_EXCEEDED',
      'ERR::ENGINE::UNAVAILABLE',
      'ERR::PROXY::EXHAUSTED',
    ],
  },
  {
    method: 'get',
    path: '/v1/sessions',
    operationId: 'listSessions',
    tag: 'Sessions',
    summary: "List the project's sessions, newest first",
    access: 'sessions',
    parameters: Object.values(SESSION_LIST_DESCRIPTIONS),
    responses: [
      {
        status: 200,
        description: 'A page of sessions.',
        headers: NO_STORE,
        content: jsonContent({ type: 'object', required: ['sessions'], properties: { sessions: { type: 'array', items: ref('Session') }, next_cursor: { type: 'string' } } }),
      },
    ],
    errors: ['ERR::REQUEST::INVALID_PARAMETER'],
  },
  {
    method: 'get',
    path: '/v1/sessions/{sessionId}',
    operationId: 'getSession',
    tag: 'Sessions',
    summary: 'Read a session',
    access: 'sessions',
    parameters: [sessionId],
    responses: [{ status: 200, description: 'The session.', headers: NO_STORE, content: jsonContent(ref('Session')) }],
    errors: ['ERR::REQUEST::INVALID_PARAMETER', 'ERR::SESSION::NOT_FOUND'],
  },
  {
    method: 'delete',
    path: '/v1/sessions/{sessionId}',
    operationId: 'deleteSession',
    tag: 'Sessions',
    summary: 'Delete a session and its stored context (no request body)',
    access: 'sessions',
    parameters: [sessionId, FORCE.force],
    responses: [{ status: 204, description: 'Deleted.', headers: NO_STORE }],
    errors: ['ERR::REQUEST::INVALID_PARAMETER', 'ERR::SESSION::NOT_FOUND', 'ERR::SESSION::BUSY'],
  },
  {
    method: 'get',
    path: '/v1/sessions/{sessionId}/context',
    operationId: 'getSessionContext',
    tag: 'Sessions',
    summary: "Export an active session's cookies and web storage",
    access: 'sessions',
    parameters: [sessionId],
    responses: [
      {
        status: 200,
        description: 'The stored context. It holds live credentials.',
        headers: NO_STORE,
        content: jsonContent({
          type: 'object',
          required: ['session_id', 'schema_version', 'session_context', 'warning'],
          properties: { session_id: { type: 'string' }, schema_version: { type: 'integer' }, session_context: { type: 'object' }, warning: { type: 'string' } },
        }),
      },
    ],
    errors: ['ERR::REQUEST::INVALID_PARAMETER', 'ERR::SESSION::NOT_FOUND', 'ERR::SESSION::EXPIRED', 'ERR::SESSION::RELEASED', 'ERR::SESSION::STATE_CORRUPT'],
  },
  {
    method: 'post',
    path: '/v1/sessions/{sessionId}/release',
    operationId: 'releaseSession',
    tag: 'Sessions',
    summary: 'Release a session: its context is destroyed (no request body)',
    access: 'sessions',
    parameters: [sessionId, FORCE.force],
    responses: [{ status: 200, description: 'The released session.', headers: NO_STORE, content: jsonContent(ref('Session')) }],
    errors: ['ERR::REQUEST::INVALID_PARAMETER', 'ERR::SESSION::NOT_FOUND', 'ERR::SESSION::EXPIRED', 'ERR::SESSION::RELEASED', 'ERR::SESSION::BUSY'],
  },
];
