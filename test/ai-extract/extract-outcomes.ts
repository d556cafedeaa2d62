import { expect } from 'vitest';
import type { EmbeddedService } from '../support/embedded.js';
import { authed, jsonPost } from '../support/embedded.js';
import { creditTotals } from '../support/ledger.js';

/** Credits spent by the organization so far, in micro-credits; no hold may be left behind. */
export async function spentMicro(service: EmbeddedService): Promise<number> {
  const { spent, reserved } = await creditTotals(service.db, 'all');
  expect(reserved).toBe(0);
  return spent;
}

export async function logEntry(service: EmbeddedService, requestId: string | null): Promise<Record<string, unknown> & { features: Record<string, unknown> }> {
  const response = await fetch(`${service.url}/v1/requests/${requestId}`, authed(service.secret));
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown> & { features: Record<string, unknown> };
}

export function scrape(service: EmbeddedService, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { cache: false, ...body }));
}

/** A counter's value in the service's registry (0 when the series does not exist yet). */
export async function counterValue(service: EmbeddedService, name: string, labels: Record<string, string>): Promise<number> {
  const metric = service.registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  const match = values.find((v) => Object.entries(labels).every(([key, value]) => v.labels[key] === value));
  return match?.value ?? 0;
}

/**
 * What a scrape did, as a user sees it: status, code, X-Credits-Charged, the credits spent, and the
 * request log record. `spentBefore` is read before the scrape.
 */
export async function outcomeOf(service: EmbeddedService, response: Response, spentBefore: number) {
  const body = (await response.json()) as Record<string, unknown>;
  const entry = await logEntry(service, response.headers.get('x-request-id'));
  return {
    status: response.status,
    charged: response.headers.get('x-credits-charged'),
    spent: ((await spentMicro(service)) - spentBefore) / 1_000_000,
    body,
    entry,
    model: entry.features.ai_extract as Record<string, unknown> | null,
  };
}
