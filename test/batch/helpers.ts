import { expect } from 'vitest';
import { authed, jsonPost, startEmbedded, type EmbeddedService } from '../support/embedded.js';

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

export function startBatchService(env: Record<string, string> = {}): Promise<EmbeddedService> {
  return startEmbedded({ engines: ['fetch'], env: { ...BATCH_ENV, ...env } });
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
  async waitFor(id: string, done: (job: Json) => boolean, deadlineMs = 60_000): Promise<Json> {
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
  const rows = await service.db.query<{ spent: number; reserved: number }>(
    `SELECT COALESCE(SUM(spent_micro), 0) AS spent, COALESCE(SUM(reserved_micro), 0) AS reserved FROM credit_periods WHERE environment = 'live'`,
  );
  return { spent: Number(rows.rows[0].spent), reserved: Number(rows.rows[0].reserved) };
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
