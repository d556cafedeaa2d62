import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ERROR_CATALOGUE, ServiceError, type ErrorCode } from '../../lib/errors/index.js';

/** One answer of the gateway's own API, as a tool reads it. */
export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** What an error tool result carries (docs/mcp.md "Errors"): the problem's code and whether to retry. */
export interface ToolProblem {
  code: string;
  retryable: boolean;
  status: number;
  detail: string | null;
  request_id: string | null;
  retry_after_seconds?: number;
}

export function problemResult(problem: ToolProblem): CallToolResult {
  const text = `${problem.code}${problem.detail ? `: ${problem.detail}` : ''} (retryable: ${problem.retryable})`;
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { ...problem } };
}

/** A ServiceError raised by the tool itself (a missing scope, a missing argument). */
export function serviceErrorResult(error: ServiceError): CallToolResult {
  return problemResult({ code: error.code, retryable: error.retryable, status: error.status, detail: error.detail ?? null, request_id: null });
}

/** A problem+json answer of the API as a tool error. */
export function answerProblem(answer: ApiAnswer): CallToolResult {
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    // Not a problem body (should not happen): the catalogue's generic code below.
  }
  const code = typeof body.code === 'string' ? body.code : 'ERR::INTERNAL::ERROR';
  const known = ERROR_CATALOGUE[code as ErrorCode];
  return problemResult({
    code,
    retryable: typeof body.retryable === 'boolean' ? body.retryable : (known?.retryable ?? false),
    status: answer.status,
    detail: typeof body.detail === 'string' ? body.detail : null,
    request_id: answer.headers.get('x-request-id'),
    ...(typeof body.retry_after_seconds === 'number' ? { retry_after_seconds: body.retry_after_seconds } : {}),
  });
}

/** A JSON answer as text (what a model reads) and as structured content (what a program reads). */
export function jsonResult(value: Record<string, unknown>, meta?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value, ...(meta ? { _meta: meta } : {}) };
}

export function parseJson(answer: ApiAnswer): Record<string, unknown> {
  return JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
}
