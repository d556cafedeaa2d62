import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BusError, type Bus, type RequestOptions } from '../../../../lib/bus/bus.js';
import { ACCEPT_WITHIN_MS } from '../../../../lib/bus/nats-reply-protocol.js';
import { ServiceError } from '../../../../lib/errors/index.js';
import { dispatchJob, type Liveness } from '../../../../gateway/scrape/dispatch.js';
import { wireJob } from '../../../support/scrape-job.js';

const EXPIRY_MS = 6000;

/** A NATS bus whose worker never answers: the request ends only when the watchdog aborts it. */
function silentBus(accept: (options: RequestOptions) => void): Bus {
  return {
    transport: 'nats',
    requestJson: (_subject: string, _payload: unknown, _schema: unknown, options: RequestOptions) => {
      accept(options);
      return new Promise((_resolve, reject) => {
        options.signal?.addEventListener('abort', () => reject(new BusError('timeout', 'request aborted')), { once: true });
      });
    },
  } as unknown as Bus;
}

function membership(live: Set<string>): Liveness {
  return { isLive: (id: string) => live.has(id), expiryMs: () => EXPIRY_MS };
}

const job = () => wireJob({ engine: 'fetch', params: { url: 'http://127.0.0.1/' }, budgetMs: 300_000, requestId: 'r1', projectId: 'p1' });

/** Whether the dispatch has ended yet, and how. */
function watch(promise: Promise<unknown>): { outcome: unknown } {
  const state: { outcome: unknown } = { outcome: undefined };
  promise.then((value) => (state.outcome = value), (error: unknown) => (state.outcome = error));
  return state;
}

describe('dispatch watchdog (NATS)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers 503 when no worker has acknowledged the job once the acceptance window and the membership expiry have passed', async () => {
    const dispatched = watch(dispatchJob(silentBus(() => undefined), membership(new Set()), job()));
    await vi.advanceTimersByTimeAsync(ACCEPT_WITHIN_MS + EXPIRY_MS - 1000);
    expect(dispatched.outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(2000);
    expect(dispatched.outcome).toBeInstanceOf(ServiceError);
    // No worker ever took it: the detail does not claim one was running it.
    expect(dispatched.outcome).toMatchObject({ code: 'ERR::ENGINE::UNAVAILABLE', detail: 'No fetch worker took this request (it went to one that was stopping); retry' });
  });

  it('keeps waiting on a worker that acknowledged the job while it stays live, and answers 503 once it leaves', async () => {
    const live = new Set(['worker-1']);
    const dispatched = watch(dispatchJob(silentBus((options) => setTimeout(() => options.onAccepted?.('worker-1'), ACCEPT_WITHIN_MS)), membership(live), job()));
    await vi.advanceTimersByTimeAsync(10 * (ACCEPT_WITHIN_MS + EXPIRY_MS));
    expect(dispatched.outcome).toBeUndefined();
    live.delete('worker-1');
    await vi.advanceTimersByTimeAsync(2000);
    // The engine was reached (a worker of it took the job): named, so the scrape counts under it, not `none`.
    expect(dispatched.outcome).toMatchObject({ code: 'ERR::ENGINE::UNAVAILABLE', detail: 'The fetch worker running this request stopped; retry', diagnostics: { engine: 'fetch' } });
  });

  it('watches every running job on one timer, aborts only the job whose worker left, and leaves no timer once none runs', async () => {
    const live = new Set(['worker-1', 'worker-2']);
    const acceptedBy = (id: string) => silentBus((options) => options.onAccepted?.(id));
    const first = watch(dispatchJob(acceptedBy('worker-1'), membership(live), job()));
    const second = watch(dispatchJob(acceptedBy('worker-2'), membership(live), job()));
    expect(vi.getTimerCount()).toBe(1);
    live.delete('worker-1');
    await vi.advanceTimersByTimeAsync(2000);
    expect(first.outcome).toMatchObject({ code: 'ERR::ENGINE::UNAVAILABLE' });
    expect(second.outcome).toBeUndefined();
    live.delete('worker-2');
    await vi.advanceTimersByTimeAsync(2000);
    expect(second.outcome).toMatchObject({ code: 'ERR::ENGINE::UNAVAILABLE' });
    expect(vi.getTimerCount()).toBe(0);
  });
});
