import { EXIT, type ExitCode } from './exit-codes.js';

/** The fields of the problem body (docs/api-reference.md "Problem body") the client reads; anything else is kept as received. */
export interface Problem {
  type?: string;
  title?: string;
  status: number;
  code?: string;
  detail?: string;
  retryable?: boolean;
  request_id?: string;
  instance?: string;
  target_status?: number | null;
  retry_after_seconds?: number;
  warnings?: string[];
  diagnostics?: { hint?: string; failed_at?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** A request the service answered with an error status (or one that never got an answer). */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly problem: Problem,
    /** How many attempts were made before giving up. */
    readonly attempts = 1,
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${problem.status}`);
  }

  get exitCode(): ExitCode {
    return exitCodeOf(this.problem.status);
  }
}

export function exitCodeOf(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 402) return EXIT.quota;
  return EXIT.failed;
}

/** Reads an error answer: a problem+json body as sent, else a synthetic problem from the status. */
export function problemFrom(status: number, body: Buffer, requestId: string | null): Problem {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const problem = parsed as Problem;
      return { ...problem, status: typeof problem.status === 'number' ? problem.status : status, request_id: problem.request_id ?? requestId ?? undefined };
    }
  } catch {
    // not JSON: fall through to a problem built from the status line
  }
  const text = body.toString('utf8').trim().slice(0, 500);
  return { status, title: `HTTP ${status}`, ...(text ? { detail: text } : {}), ...(requestId ? { request_id: requestId } : {}) };
}

/** A connection that failed before any answer: status 0, retryable once (docs/cli.md "Retries"). */
export function connectionProblem(url: string, error: unknown): Problem {
  const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
  return { status: 0, title: 'No answer from the service', detail: `${url}: ${cause}`, code: 'CLIENT::CONNECTION_FAILED' };
}

/** The problem as a person reads it: title and status, code, detail, hint, request id. */
export function formatProblem(problem: Problem, attempts = 1): string {
  const head = problem.status > 0 ? `${problem.title ?? 'Error'} (HTTP ${problem.status})` : (problem.title ?? 'Error');
  const lines = [`error: ${head}`];
  if (problem.code) lines.push(`  code:       ${problem.code}${problem.retryable ? ' (retryable)' : ''}`);
  if (problem.detail) lines.push(`  detail:     ${problem.detail}`);
  if (problem.target_status !== undefined && problem.target_status !== null) lines.push(`  target:     HTTP ${problem.target_status}`);
  if (problem.diagnostics?.hint) lines.push(`  hint:       ${problem.diagnostics.hint}`);
  if (problem.warnings?.length) lines.push(`  warnings:   ${problem.warnings.join(', ')}`);
  // A refused key cannot read the log either (401), so the lookup is suggested only for other answers.
  if (problem.request_id) lines.push(`  request id: ${problem.request_id}${problem.status === 401 ? '' : `  (trawler requests ${problem.request_id})`}`);
  if (problem.status === 401) lines.push('  hint:       check TRAWLER_API_KEY (or --api-key): a key from the dashboard\'s API keys page, svc_live_… or svc_test_…');
  if (attempts > 1) lines.push(`  attempts:   ${attempts}`);
  return lines.join('\n');
}
