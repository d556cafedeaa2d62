import type { Problem } from './problem.js';

/** The client retry rules 1-5 (docs/cli.md "Retries"), as numbers. */
export interface RetryPolicy {
  /** Retries after the first attempt (rule 3: stop after 3). */
  maxRetries: number;
  /** First back-off step without Retry-After (rule 3: about 1 s, then 2 s, 4 s). */
  baseDelayMs: number;
  /** In [0, 1); injected so tests can pin the jitter. */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 1000, random: Math.random };

/**
 * What a dropped connection (no answer at all) may do. Rule 5: retry at most once; `never` for calls
 * that create something without an idempotency key where a duplicate is worse than a failure
 * (POST /v1/batch and its appends: check `GET /v1/batch` instead).
 */
export type OnDrop = 'once' | 'never';

/**
 * Milliseconds to wait before retry number `retry` (0-based), or null to give up. Only a problem the
 * service marked `retryable: true` is retried; 402 never is, whatever it says (rule 4).
 */
export function retryDelay(problem: Problem, retry: number, retryAfterHeader: string | null, policy: RetryPolicy, onDrop: OnDrop): number | null {
  if (problem.status === 0) {
    return onDrop === 'once' && retry === 0 ? backoff(0, policy) : null;
  }
  if (problem.status === 402 || problem.code === 'ERR::LIMIT::QUOTA_EXCEEDED') return null;
  if (problem.retryable !== true || retry >= policy.maxRetries) return null;
  const serverWait = retryAfterSeconds(retryAfterHeader) ?? problem.retry_after_seconds;
  if (typeof serverWait === 'number' && Number.isFinite(serverWait) && serverWait >= 0) return Math.ceil(serverWait * 1000);
  return backoff(retry, policy);
}

/** Exponential steps with +-25 % jitter, so clients that failed together do not retry together. */
export function backoff(retry: number, policy: RetryPolicy): number {
  const step = policy.baseDelayMs * 2 ** retry;
  return Math.round(step * (0.75 + policy.random() * 0.5));
}

/** Retry-After as delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}
