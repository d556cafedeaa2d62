import type { ApiClient } from '../client.js';
import { ApiError } from '../problem.js';
import type { InterruptControl } from './interrupt.js';
import type { ProgressView } from './progress.js';
import { drainResults, START, type ResultsSink } from './results.js';
import type { BatchJob } from './submit.js';

export const TERMINAL_STATUSES = ['completed', 'failed', 'cancelled'];

export interface WatchOptions {
  client: ApiClient;
  jobId: string;
  /** Lines are appended here as items finish (in seq order, through the results cursor). */
  sink: ResultsSink | null;
  progress: ProgressView;
  interrupts: InterruptControl;
  pollMs: number;
  /** Where the job is read: `/v1/batch` (default), or `/v1/crawl` for a crawl's figures (pages discovered). */
  statusRoute?: '/v1/batch' | '/v1/crawl';
}

export interface WatchOutcome {
  job: BatchJob;
  /** `detached`: the caller stopped watching a job that still runs. */
  ended: 'terminal' | 'detached';
  cancelRequested: boolean;
}

/**
 * Polls the job and follows its results cursor until the job is terminal. The job is read before the
 * results, so once it reads terminal the drain that follows holds every line.
 */
export async function watchJob(options: WatchOptions): Promise<WatchOutcome> {
  const { client, jobId, sink, progress, interrupts } = options;
  let position = START;
  for (;;) {
    const job = await client.json<BatchJob>('GET', `${options.statusRoute ?? '/v1/batch'}/${jobId}`);
    if (sink) position = await drainResults(client, jobId, position, (lines) => sink.write(lines));
    progress.update(job);
    if (TERMINAL_STATUSES.includes(job.status)) return { job, ended: 'terminal', cancelRequested: interrupts.cancelSent };
    const action = await interrupts.next(options.pollMs);
    if (action === 'detach') return { job, ended: 'detached', cancelRequested: interrupts.cancelSent };
    if (action === 'cancel' && !interrupts.cancelSent) {
      interrupts.cancelSent = true;
      progress.note(`trawler: cancelling batch job ${jobId}; items already running finish (Ctrl-C again stops watching)`);
      await cancel(client, jobId);
    }
  }
}

/** 409 means the job ended meanwhile: nothing left to cancel. */
async function cancel(client: ApiClient, jobId: string): Promise<void> {
  try {
    await client.request('POST', `/v1/batch/${jobId}/cancel`, { onDrop: 'once' });
  } catch (error) {
    if (!(error instanceof ApiError && error.problem.status === 409)) throw error;
  }
}
