import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ScrapeJob } from '../../lib/protocol/index.js';
import { afterAll, beforeAll } from 'vitest';
import { BrowserEngine } from '../../worker/browser/render-engine.js';
import { EgressGuard } from '../../worker/egress/guard.js';
import type { EngineContext } from '../../worker/engine.js';
import { startJsSite, type JsSite } from '../support/js-pages.js';
import { wireJob } from '../support/scrape-job.js';

let sequence = 0;

/** A ScrapeJob as the gateway would send it (a render engine with js_render=true unless given). */
export function job(engine: 'obscura' | 'chromium', params: Record<string, unknown>, budgetMs = 20_000, session: unknown = null): ScrapeJob {
  sequence += 1;
  return wireJob({ engine, params: { js_render: true, ...params }, budgetMs, requestId: `req-${process.pid}-${sequence}`, projectId: 'project-test', session });
}

export function context(signal: AbortSignal = new AbortController().signal): EngineContext {
  return { workerId: 'worker-test', signal };
}

/** Pids of processes whose command line holds `pattern` (the pattern itself never matches pgrep). */
export function pgrep(args: string[]): number[] {
  try {
    return execFileSync('pgrep', args, { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** The error a promise rejects with, for asserting on its code and retryability. */
export async function failureOf(promise: Promise<unknown>): Promise<{ code: string; retryable: boolean; detail: string | undefined }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: string; retryable: boolean; detail?: string };
    return { code: e.code, retryable: e.retryable, detail: e.detail };
  }
  throw new Error('expected the promise to reject');
}

/**
 * The pids among `pids` that are still running. Renderers orphaned by a SIGKILLed browser are
 * re-parented to PID 1, which reaps them only when it is a real init (tini, `docker --init`); in
 * this sandbox PID 1 does not, so dead ones linger as zombies (state Z) that hold no resources.
 */
export function running(pids: number[]): number[] {
  return pids.filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
    } catch {
      return false;
    }
  });
}

export interface BrowserEngineFixture {
  readonly site: JsSite;
  readonly guard: EgressGuard;
  readonly engine: BrowserEngine;
  render(params: Record<string, unknown>, budgetMs?: number): ReturnType<BrowserEngine['fetch']>;
}

/** One JS site, one egress guard (loopback allowed) and one engine for the whole file, started and stopped around it. */
export function useBrowserEngine(name: 'obscura' | 'chromium'): BrowserEngineFixture {
  let site: JsSite | undefined;
  let guard: EgressGuard | undefined;
  let engine: BrowserEngine | undefined;
  beforeAll(async () => {
    site = await startJsSite();
    guard = await EgressGuard.start({ policy: { allowLoopback: true } });
    engine = new BrowserEngine({ name, guard, capacity: 1 });
    await engine.start();
  }, 60_000);
  afterAll(async () => {
    await engine?.stop();
    await guard?.close();
    await site?.close();
  });
  return {
    get site() {
      return site!;
    },
    get guard() {
      return guard!;
    },
    get engine() {
      return engine!;
    },
    render: (params, budgetMs) => engine!.fetch(job(name, params, budgetMs), context()),
  };
}
