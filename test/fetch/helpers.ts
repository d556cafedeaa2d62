import type { ScrapeJob } from '../../lib/protocol/index.js';
import { SCRAPE_JOB_TYPE } from '../../lib/protocol/index.js';
import { ServiceError } from '../../lib/errors/index.js';
import type { EngineContext } from '../../worker/engine.js';

export function fetchJob(params: Record<string, unknown>, budgetMs = 10_000): ScrapeJob {
  const now = Date.now();
  return {
    type: SCRAPE_JOB_TYPE,
    request_id: `req-${Math.random().toString(36).slice(2)}`,
    project_id: 'proj-test',
    engine: 'fetch',
    params,
    deadline_at: now + budgetMs,
    budget_ms: budgetMs,
    dispatched_at: now,
    session: null,
  };
}

export function engineContext(signal: AbortSignal = new AbortController().signal): EngineContext {
  return { workerId: 'worker-test', signal };
}

/** The ServiceError a promise rejects with; fails the test if it resolves or throws something else. */
export async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw new Error(`expected a ServiceError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected a rejection, the promise resolved');
}
