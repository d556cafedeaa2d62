import { MICRO_PER_CREDIT } from '../billing/prices.js';
import type { Progress } from '../store/batch/items.js';

/** `progress` of the batch job object (SPEC.md "Batch job", docs/batch.md), members in the API's order. */
export interface JobProgress {
  total: number;
  /** succeeded + failed + cancelled + skipped. */
  completed: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  skipped: number;
  remaining: number;
  /** Rounded down. */
  percent_complete: number;
  /** Whole credits, rounded down. */
  credits_charged: number;
  credits_charged_micro: number;
  bytes: number;
}

/**
 * A job's progress as the API and the dashboard show it, from the totals on its row (`progressOf`):
 * the one place these figures are derived (gateway/batch/job-view.ts, dashboard/routes/crawl.ts).
 */
export function jobProgress(progress: Progress): JobProgress {
  const completed = progress.succeeded + progress.failed + progress.cancelled + progress.skipped;
  return {
    total: progress.total,
    completed,
    succeeded: progress.succeeded,
    failed: progress.failed,
    cancelled: progress.cancelled,
    skipped: progress.skipped,
    remaining: progress.total - completed,
    percent_complete: progress.total === 0 ? 0 : Math.floor((completed * 100) / progress.total),
    credits_charged: Math.floor(progress.creditsChargedMicro / MICRO_PER_CREDIT),
    credits_charged_micro: progress.creditsChargedMicro,
    bytes: progress.bytes,
  };
}
