import { expect } from 'vitest';
import { authed, jsonPost, startEmbedded, type EmbeddedOptions, type EmbeddedService } from '../support/embedded.js';
import { creditTotals } from '../support/ledger.js';
import type { Queryable } from '../../lib/store/db.js';

export const BATCH_ENV = {
  BATCH_DISPATCH_INTERVAL_MS: '30',
  BATCH_HOLD_RETURN_DELAY_MS: '0',
  WEBHOOK_RETRY_BASE_MS: '50',
  // The suites poll job state quickly; the per-key rate limit is not what they test.
  DEFAULT_RATE_LIMIT_PER_SECOND: '1000',
};

export type Json = Record<string, unknown>;

/** Bound for waits on a shared, loaded machine: generous, since only the state waited for matters. */
export const SLOW_MACHINE_MS = 120_000;

export const isTerminal = (job: Json): boolean => ['completed', 'failed', 'cancelled'].includes(job.status as string);

/** For suites on a loaded machine: a worker counts as gone only after 3 missed heartbeats of 2 s. */
export const PATIENT_HEARTBEAT_ENV = { HEARTBEAT_INTERVAL_MS: '2000' };

/** Waits until the gateway has heard from a worker (items are only claimed once one is live). */
export async function waitForWorker(service: EmbeddedService, deadlineMs = SLOW_MACHINE_MS): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const response = await fetch(`${service.url}/v1/workers`, authed(service.secret));
    const body = (await response.json()) as { workers?: unknown[] };
    if (response.status === 200 && (body.workers?.length ?? 0) > 0) return;
    if (Date.now() > until) throw new Error('no worker became live');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The service a batch suite runs against (`env` on top of BATCH_ENV), for embeddedForSuite. */
export function batchServiceOptions(env: Record<string, string> = {}): EmbeddedOptions {
  return { engines: ['fetch'], env: { ...BATCH_ENV, ...env } };
}

export function startBatchService(env: Record<string, string> = {}): Promise<EmbeddedService> {
  return startEmbedded(batchServiceOptions(env));
}

export class BatchClient {
  constructor(
    readonly service: EmbeddedService,
    readonly secret = service.secret,
  ) {}

  post(path: string, body?: unknown): Promise<Response> {
    const init = body === undefined ? authed(this.secret, { method: 'POST' }) : jsonPost(this.secret, body);
    return fetch(`${this.service.url}${path}`, init);
  }

  get(path: string): Promise<Response> {
    return fetch(`${this.service.url}${path}`, authed(this.secret));
  }

  async submit(body: Json): Promise<Json> {
    const response = await this.post('/v1/batch', body);
    const json = (await response.json()) as Json;
    expect(response.status, JSON.stringify(json)).toBe(202);
    return json;
  }

  async job(id: string): Promise<Json> {
    const response = await this.get(`/v1/batch/${id}`);
    expect(response.status).toBe(200);
    return (await response.json()) as Json;
  }

  /** Polls the job until `done` holds, with a deadline (no fixed sleeps). */
  async waitFor(id: string, done: (job: Json) => boolean, deadlineMs = 180_000): Promise<Json> {
    const until = Date.now() + deadlineMs;
    for (;;) {
      const job = await this.job(id);
      if (done(job)) return job;
      if (Date.now() > until) throw new Error(`job ${id} did not reach the state in time: ${JSON.stringify(job)}`);
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  waitTerminal(id: string): Promise<Json> {
    return this.waitFor(id, (job) => ['completed', 'failed', 'cancelled'].includes(job.status as string));
  }

  async results(id: string, query = ''): Promise<{ response: Response; lines: Json[] }> {
    const response = await this.get(`/v1/batch/${id}/results${query}`);
    const text = await response.text();
    const lines = response.status === 200 ? text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Json) : [];
    return { response, lines };
  }
}

/** Ledger of the live allowance: spent and reserved micro-credits. */
export async function ledger(service: EmbeddedService): Promise<{ spent: number; reserved: number }> {
  return creditTotals(service.db);
}

/** Holds of unsuccessful items go back on a dispatcher pass after the item ends: poll until they have. */
export async function ledgerOnceReleased(service: EmbeddedService, reserved: number, deadlineMs = 60_000): Promise<{ spent: number; reserved: number }> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const now = await ledger(service);
    if (now.reserved === reserved || Date.now() > until) return now;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The totals on the job row (migration 014) against a count of its items, both read by one statement so
 * they come from one snapshot: any difference is a moment a client could have seen wrong counts.
 */
export async function totalsAgainstItems(db: Queryable, jobId: string): Promise<{ onRow: Json; counted: Json }> {
  const result = await db.query<{ on_row: Json; counted: Json }>(
    `SELECT json_build_object('queued', j.items_queued, 'running', j.items_running, 'succeeded', j.items_succeeded,
              'failed', j.items_failed, 'cancelled', j.items_cancelled, 'skipped', j.items_skipped,
              'charged', j.items_charged_micro, 'running_hold', j.items_running_hold_micro, 'bytes', j.items_bytes) AS on_row,
            (SELECT json_build_object('queued', count(*) FILTER (WHERE status = 'queued'), 'running', count(*) FILTER (WHERE status = 'running'),
              'succeeded', count(*) FILTER (WHERE status = 'succeeded'), 'failed', count(*) FILTER (WHERE status = 'failed'),
              'cancelled', count(*) FILTER (WHERE status = 'cancelled'), 'skipped', count(*) FILTER (WHERE status = 'skipped'),
              'charged', COALESCE(sum(credits_micro), 0), 'running_hold', COALESCE(sum(hold_micro) FILTER (WHERE status = 'running'), 0),
              'bytes', COALESCE(sum(bytes), 0))
               FROM batch_items i WHERE i.job_id = j.id) AS counted
       FROM batch_jobs j WHERE j.id = $1`,
    [jobId],
  );
  const normalize = (value: Json) => Object.fromEntries(Object.entries(value).map(([key, n]) => [key, Number(n)]));
  return { onRow: normalize(result.rows[0].on_row), counted: normalize(result.rows[0].counted) };
}

export async function expectTotalsMatchItems(db: Queryable, jobId: string): Promise<void> {
  const { onRow, counted } = await totalsAgainstItems(db, jobId);
  expect(onRow).toEqual(counted);
}
