import { expect } from 'vitest';

/** A problem+json body (lib/errors/problem.ts) as tests read it. */
export interface Problem {
  code: string;
  [field: string]: unknown;
}

/**
 * The problem+json body of an error answer, its media type checked; with `status`, `code`, or
 * `requestId` (the body's `request_id` is the X-Request-Id header), those too.
 */
export async function problemOf(response: Response, expected: { status?: number; code?: string; requestId?: boolean } = {}): Promise<Problem> {
  if (expected.status !== undefined) expect(response.status).toBe(expected.status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as Problem;
  if (expected.requestId) expect(body.request_id).toBe(response.headers.get('x-request-id'));
  if (expected.code !== undefined) expect(body.code).toBe(expected.code);
  return body;
}

/** The error code of an answer (its status checked when given). */
export async function codeOf(response: Response, status?: number): Promise<string> {
  if (status !== undefined) expect(response.status).toBe(status);
  return ((await response.json()) as Problem).code;
}
