import { BusError, type Bus, type RequestSignal } from '../../lib/bus/bus.js';
import { ACCEPT_WITHIN_MS } from '../../lib/bus/nats-reply-protocol.js';
import { ServiceError } from '../../lib/errors/index.js';
import { ScrapeResultSchema, scrapeSubject, type ScrapeJob, type ScrapeResult } from '../../lib/protocol/index.js';
import type { WorkerDirectory } from '../worker-directory.js';

/** Slack the gateway waits past the job's budget for the worker's own timeout answer. */
const REPLY_SLACK_MS = 5000;
const LIVENESS_CHECK_MS = 1000;

/** What the watchdog asks of the membership. */
export type Liveness = Pick<WorkerDirectory, 'isLive' | 'expiryMs'>;

/**
 * Sends one job to its engine's pool and waits for the reply. No live worker: 503 at once. A worker
 * that took the job and then left the membership (crash), or that died before acknowledging it: 503
 * within seconds, not a hang.
 */
export async function dispatchJob(bus: Bus, directory: Liveness, job: ScrapeJob): Promise<ScrapeResult> {
  // In-process the responder is this very process and cannot leave while the job runs: no watchdog
  // (its interval timer and abort signal per job were about 3% of the embedded service's CPU).
  const watchdog = bus.transport === 'memory' ? null : new ResponderWatchdog(directory);
  try {
    const reply = await bus.requestJson(scrapeSubject(job.engine), job, ScrapeResultSchema, {
      timeoutMs: job.budget_ms + REPLY_SLACK_MS,
      signal: watchdog ?? undefined,
      onAccepted: watchdog?.accepted,
    });
    if (!reply.ok) throw new ServiceError('ERR::INTERNAL::ERROR', 'Worker sent a malformed result');
    return reply.value;
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    if (error instanceof BusError) throw busFailure(error, job, watchdog?.aborted ? watchdog.lostAfter : null);
    throw error;
  } finally {
    watchdog?.stop();
  }
}

/**
 * Aborts the request once the worker that accepted it is no longer live in the membership, or when no
 * worker has accepted it by ACCEPT_WITHIN_MS plus the membership's expiry: a live worker acknowledges
 * a job it is still running after ACCEPT_WITHIN_MS, and one too busy to do so for that long would
 * have been dropped from the membership as well. It is its own request signal (one listener, no
 * EventTarget), and one timer checks every watched request: an AbortController and an interval per
 * job cost about 1.5% of the gateway's CPU (docs/platform.md, "Performance").
 */
class ResponderWatchdog implements RequestSignal {
  aborted = false;
  /** Why it aborted: the worker that took the job left, or none ever took it (sent to one that was dying). */
  lostAfter: 'acceptance' | 'no_acceptance' = 'acceptance';
  private listener: (() => void) | null = null;
  private responder: string | null = null;
  private readonly sentAt = Date.now();
  readonly accepted = (id: string): void => {
    this.responder = id;
  };

  constructor(private readonly directory: Liveness) {
    watching.add(this);
    watchTimer ??= setInterval(checkWatched, LIVENESS_CHECK_MS);
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.listener = listener;
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.listener === listener) this.listener = null;
  }

  check(now: number): void {
    const lost = this.responder === null ? now - this.sentAt > ACCEPT_WITHIN_MS + this.directory.expiryMs() : !this.directory.isLive(this.responder);
    if (!lost) return;
    this.aborted = true;
    this.lostAfter = this.responder === null ? 'no_acceptance' : 'acceptance';
    const listener = this.listener;
    this.listener = null;
    this.stop();
    listener?.();
  }

  stop(): void {
    watching.delete(this);
    if (watching.size > 0 || !watchTimer) return;
    clearInterval(watchTimer);
    watchTimer = null;
  }
}

/** The requests being watched, and the one timer that checks them while there are any. */
const watching = new Set<ResponderWatchdog>();
let watchTimer: NodeJS.Timeout | null = null;

function checkWatched(): void {
  const now = Date.now();
  for (const watchdog of watching) watchdog.check(now);
}

function busFailure(error: BusError, job: ScrapeJob, workerLost: ResponderWatchdog['lostAfter'] | null): ServiceError {
  if (workerLost === 'acceptance') {
    // A worker of the engine had taken it: the engine was reached (metrics label it so, not `none`).
    return new ServiceError('ERR::ENGINE::UNAVAILABLE', `The ${job.engine} worker running this request stopped; retry`, { diagnostics: { engine: job.engine } });
  }
  if (workerLost === 'no_acceptance') {
    return new ServiceError('ERR::ENGINE::UNAVAILABLE', `No ${job.engine} worker took this request (it went to one that was stopping); retry`);
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
    case 'too_large':
      // docs/platform.md, "Bus protocol": a reply is bounded so no gateway buffers an unbounded one.
      return new ServiceError('ERR::ENGINE::RENDER_FAILED', `The ${job.engine} worker's result is larger than a reply may carry (${error.message}); ask for less: a smaller network_capture, no full-page screenshot`);
  }
}
