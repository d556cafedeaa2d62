import { EXIT, type ExitCode } from '../exit-codes.js';
import { credits } from '../table.js';
import type { ResultsSink } from './results.js';
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

/**
 * Which items failed and why: `item 3 (urls.txt:4) URL: CODE: detail`. Items count from 1; with the
 * input file known, each names its line there too.
 */
export function describeFailures(jobId: string, sink: Pick<ResultsSink, 'failures' | 'failedCount'>, where?: string[]): string {
  const lines = sink.failures.map((failure) => {
    const at = where?.[failure.seq] ? ` (${where[failure.seq]})` : '';
    return `  failed    item ${failure.seq + 1}${at} ${failure.url}: ${failure.code}${failure.detail ? `: ${failure.detail}` : ''}`;
  });
  const more = sink.failedCount - sink.failures.length;
  if (more > 0) lines.push(`  ... and ${more} more failed item${more === 1 ? '' : 's'}: trawler batch results ${jobId} --status failed`);
  return lines.join('\n');
}
