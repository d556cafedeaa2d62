import { EXIT, type ExitCode } from '../exit-codes.js';
import { credits } from '../table.js';
import type { BatchJob } from './submit.js';

/** A job in a few lines: status, counts, credits. */
export function describeJob(job: BatchJob): string {
  const p = job.progress;
  const lines = [
    `batch ${job.id}${job.name ? ` (${String(job.name)})` : ''}: ${job.status}${job.open ? ', open' : ''}`,
    `  items     ${p.completed}/${p.total} done (${p.percent_complete}%): ${p.succeeded} succeeded, ${p.failed} failed, ${p.cancelled} cancelled, ${p.skipped} skipped`,
    `  credits   ${credits(p.credits_charged_micro)} charged, ${String(job.estimated_credits ?? '?')} held at submission`,
  ];
  if (job.error_code) lines.push(`  error     ${String(job.error_code)}${job.error_message ? `: ${String(job.error_message)}` : ''}`);
  return lines.join('\n');
}

/** 0 only for a completed job whose every item succeeded; see cli/exit-codes.ts. */
export function exitCodeOfJob(job: BatchJob): ExitCode {
  const p = job.progress;
  const clean = job.status === 'completed' && p.failed === 0 && p.skipped === 0 && p.cancelled === 0;
  return clean ? EXIT.ok : EXIT.batchIncomplete;
}
