import { BusError, type Bus } from '../../lib/bus/bus.js';
import { ServiceError } from '../../lib/errors/index.js';
import { ScrapeResultSchema, scrapeSubject, type ScrapeJob, type ScrapeResult } from '../../lib/protocol/index.js';
import type { WorkerDirectory } from '../membership.js';

/** Slack the gateway waits past the job's budget for the worker's own timeout answer. */
const REPLY_SLACK_MS = 5000;
const LIVENESS_CHECK_MS = 1000;

/**
 * Sends one job to its engine's pool and waits for the reply. No live worker: 503 at once. A worker
 * that took the job and then left the membership (crash): 503 within seconds, not a hang.
 */
export async function dispatchJob(bus: Bus, directory: WorkerDirectory, job: ScrapeJob): Promise<ScrapeResult> {
  const abort = new AbortController();
  let responder: string | null = null;
  const watchdog = setInterval(() => {
    if (responder && !directory.isLive(responder)) abort.abort();
  }, LIVENESS_CHECK_MS);
  try {
    const reply = await bus.requestJson(scrapeSubject(job.engine), job, ScrapeResultSchema, {
      timeoutMs: job.budget_ms + REPLY_SLACK_MS,
      signal: abort.signal,
      onAccepted: (id) => {
        responder = id;
      },
    });
    if (!reply.ok) throw new ServiceError('ERR::INTERNAL::ERROR', 'Worker sent a malformed result');
    return reply.value;
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    if (error instanceof BusError) throw busFailure(error, job, abort.signal.aborted);
    throw error;
  } finally {
    clearInterval(watchdog);
  }
}

function busFailure(error: BusError, job: ScrapeJob, workerLost: boolean): ServiceError {
  if (workerLost) {
    return new ServiceError('ERR::ENGINE::UNAVAILABLE', `The ${job.engine} worker running this request stopped; retry`);
  }
  switch (error.kind) {
    case 'no_responders':
      return new ServiceError('ERR::ENGINE::UNAVAILABLE', `No ${job.engine} worker is running`);
    case 'timeout':
      return new ServiceError('ERR::ENGINE::UNAVAILABLE', `No ${job.engine} worker answered in time`);
    case 'closed':
      return new ServiceError('ERR::INTERNAL::UNAVAILABLE', 'The message bus is not reachable');
    case 'incomplete':
      return new ServiceError('ERR::INTERNAL::ERROR', `The ${job.engine} worker's reply was incomplete`);
  }
}
