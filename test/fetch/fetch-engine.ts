import type { ScrapeJob } from '../../lib/protocol/index.js';
import { ServiceError } from '../../lib/errors/index.js';
import { afterAll, beforeAll } from 'vitest';
import { EgressGuard } from '../../worker/egress/guard.js';
import type { EngineContext } from '../../worker/engine.js';
import { FetchEngine } from '../../worker/fetch/fetch-engine.js';
import { wireJob } from '../support/scrape-job.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';

export function fetchJob(params: Record<string, unknown>, budgetMs = 10_000): ScrapeJob {
  return wireJob({ engine: 'fetch', params, budgetMs, requestId: `req-${Math.random().toString(36).slice(2)}`, projectId: 'proj-test' });
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

export interface FetchEngineFixture {
  readonly site: TargetSite;
  readonly engine: FetchEngine;
}

/** One target site, one egress guard (loopback allowed) and one fetch engine for the enclosing suite. */
export function useFetchEngine(): FetchEngineFixture {
  const policy = { allowLoopback: true };
  let site: TargetSite | undefined;
  let guard: EgressGuard | undefined;
  let engine: FetchEngine | undefined;
  beforeAll(async () => {
    site = await startTargetSite();
    guard = await EgressGuard.start({ policy });
    engine = new FetchEngine({ guard, policy });
  });
  afterAll(async () => {
    await guard?.close();
    await site?.close();
  });
  return {
    get site() {
      return site!;
    },
    get engine() {
      return engine!;
    },
  };
}
