import { z } from 'zod';
import { ERROR_CATALOGUE, isErrorCode, type ErrorCode } from './catalogue.js';

export const TimelineStepSchema = z.object({
  stage: z.string(),
  ms: z.number(),
  ok: z.boolean(),
  detail: z.string().optional(),
});

export const AttemptSchema = z.object({
  n: z.number().int(),
  engine: z.string(),
  proxy: z.string().nullable(),
  outcome: z.string(),
  ms: z.number(),
  error_code: z.string().nullable(),
});

export const RedactedProxySchema = z.object({
  source: z.enum(['pool', 'custom', 'direct']),
  endpoint: z.string().nullable(),
  country: z.string().nullable(),
});

/** The problem body's `diagnostics`. Never carries credentials or bodies. */
export const DiagnosticsSchema = z.object({
  failed_at: z.string().optional(),
  timeline: z.array(TimelineStepSchema).optional(),
  attempts: z.array(AttemptSchema).optional(),
  budget_ms: z.number().optional(),
  elapsed_ms: z.number().optional(),
  engine: z.string().optional(),
  proxy: RedactedProxySchema.optional(),
  hint: z.string().optional(),
});

export type TimelineStep = z.infer<typeof TimelineStepSchema>;
export type Attempt = z.infer<typeof AttemptSchema>;
export type RedactedProxy = z.infer<typeof RedactedProxySchema>;
export type Diagnostics = z.infer<typeof DiagnosticsSchema>;

export interface ServiceErrorOptions {
  targetStatus?: number | null;
  retryAfterSeconds?: number;
  warnings?: string[];
  diagnostics?: Diagnostics;
  /** Extra response headers (for example Concurrency-Remaining, X-RateLimit-Reset). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The only error type that becomes a problem+json response. Status and retryability come from the
 * catalogue, never from the throw site.
 */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly detail: string | undefined;
  readonly targetStatus: number | null;
  readonly retryAfterSeconds: number | undefined;
  readonly warnings: string[] | undefined;
  readonly diagnostics: Diagnostics | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, detail?: string, options: ServiceErrorOptions = {}) {
    super(detail ? `${code}: ${detail}` : code, { cause: options.cause });
    this.name = 'ServiceError';
    this.code = code;
    this.detail = detail;
    this.targetStatus = options.targetStatus ?? null;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.warnings = options.warnings;
    this.diagnostics = options.diagnostics;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }

  get retryable(): boolean {
    return ERROR_CATALOGUE[this.code].retryable;
  }

  /** Copy with more diagnostics or warnings, keeping code and detail. */
  with(options: ServiceErrorOptions): ServiceError {
    return new ServiceError(this.code, this.detail, {
      targetStatus: this.targetStatus,
      retryAfterSeconds: this.retryAfterSeconds,
      warnings: this.warnings,
      diagnostics: this.diagnostics,
      headers: this.headers,
      cause: this.cause,
      ...options,
    });
  }

  toWire(): WireError {
    return {
      code: this.code,
      detail: this.detail ?? null,
      target_status: this.targetStatus,
      retry_after_seconds: this.retryAfterSeconds ?? null,
      warnings: this.warnings ?? [],
      diagnostics: this.diagnostics ?? null,
    };
  }

  static fromWire(wire: WireError): ServiceError {
    const code = isErrorCode(wire.code) ? wire.code : 'ERR::INTERNAL::ERROR';
    return new ServiceError(code, wire.detail ?? undefined, {
      targetStatus: wire.target_status,
      retryAfterSeconds: wire.retry_after_seconds ?? undefined,
      warnings: wire.warnings.length > 0 ? wire.warnings : undefined,
      diagnostics: wire.diagnostics ?? undefined,
    });
  }
}

/** How an error crosses the bus between worker and gateway. */
export const WireErrorSchema = z.object({
  code: z.string(),
  detail: z.string().nullable(),
  target_status: z.number().int().nullable(),
  retry_after_seconds: z.number().int().nullable(),
  warnings: z.array(z.string()),
  diagnostics: DiagnosticsSchema.nullable(),
});
export type WireError = z.infer<typeof WireErrorSchema>;

export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof ServiceError;
}

/**
 * Any thrown value as a ServiceError: a dependency out of reach (the database, the message bus) is the
 * catalogue's 503 INTERNAL::UNAVAILABLE, anything else a retryable internal error with `detail`.
 */
export function toServiceError(value: unknown, detail = 'Unexpected internal error'): ServiceError {
  if (value instanceof ServiceError) return value;
  if (isUnreachableDependency(value)) {
    return new ServiceError('ERR::INTERNAL::UNAVAILABLE', 'A service this one depends on (its database or message bus) is not reachable; retry', { cause: value });
  }
  return new ServiceError('ERR::INTERNAL::ERROR', detail, { cause: value });
}

/** Socket errors of a connection that could not be made or was lost. */
const UNREACHABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** PostgreSQL's SQLSTATEs for a connection refused or lost (class 08) and a server shutting down or starting (57P01-57P03). */
const UNREACHABLE_SQLSTATES = /^(08\d{3}|57P0[123])$/;
/** node-postgres's and nats.js's own words (no errno) for the same. */
const UNREACHABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|^(DISCONNECT|CONNECTION_REFUSED|CONNECTION_CLOSED|CONNECTION_TIMEOUT|CONNECTION_DRAINING)$/;

function isUnreachableDependency(value: unknown): boolean {
  if (!(value instanceof Error)) return false;
  const code = (value as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE_ERRNOS.has(code) || UNREACHABLE_SQLSTATES.test(code) || UNREACHABLE_MESSAGES.test(code))) return true;
  if (UNREACHABLE_MESSAGES.test(value.message)) return true;
  // AggregateError (a connect that tried several addresses) and wrapped causes.
  const inner = value instanceof AggregateError ? value.errors[0] : (value as { cause?: unknown }).cause;
  return inner !== undefined && inner !== value && isUnreachableDependency(inner);
}
