import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { MemoryBus } from '../../../lib/bus/memory-bus.js';
import { ServiceError } from '../../../lib/errors/index.js';
import { createLogger } from '../../../lib/log.js';
import { ScrapeResultSchema, scrapeSubject, type ScrapeJob } from '../../../lib/protocol/index.js';
import type { Engine, EngineContext, RawPage } from '../../../worker/engine.js';
import { WorkerNode } from '../../../worker/worker-node.js';
import { wireJob } from '../../support/scrape-job.js';

/** A fetch engine whose every job hangs until it is aborted, then fails as the real one does on a deadline. */
function hangingEngine(started: () => void): Engine {
  return {
    name: 'fetch',
    capacity: 4,
    async start() {},
    async stop() {},
    fetch(_job: ScrapeJob, context: EngineContext): Promise<RawPage> {
      started();
      return new Promise((_, reject) =>
        context.signal.addEventListener('abort', () => reject(new ServiceError('ERR::UPSTREAM::TIMEOUT', 'The target did not answer in time')), { once: true }),
      );
    },
  };
}

describe('a worker stopping with a job it cannot finish in its grace period', () => {
  it('answers that job with ENGINE::UNAVAILABLE (a retryable 503), not a target timeout', async () => {
    const bus = new MemoryBus({ checkMessages: true });
    let jobStarted!: () => void;
    const started = new Promise<void>((resolve) => (jobStarted = resolve));
    const node = new WorkerNode({
      bus,
      engine: hangingEngine(jobStarted),
      content: { run: () => Promise.reject(new Error('never reached')) },
      logger: createLogger('test', 'silent'),
      registry: new Registry(),
      pool: 'default',
      version: 'test',
      heartbeatIntervalMs: 60_000,
    });
    await node.start();
    const job = wireJob({ engine: 'fetch', params: { url: 'https://example.test/' }, budgetMs: 120_000, requestId: 'r1', projectId: 'p1' });
    const answer = bus.requestJson(scrapeSubject('fetch'), job, ScrapeResultSchema, { timeoutMs: 60_000 });
    await started;
    await node.stop(10);
    const decoded = await answer;
    expect(decoded.ok).toBe(true);
    const result = decoded.ok ? decoded.value : null;
    expect(result?.ok).toBe(false);
    expect(result && !result.ok ? result.error : null).toMatchObject({ code: 'ERR::ENGINE::UNAVAILABLE', detail: expect.stringContaining('stopped') });
    await bus.close();
  });
});
