import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryBus } from '../../lib/bus/memory-bus.js';
import { MAX_REPLY_BYTES } from '../../lib/bus/nats-reply-protocol.js';
import type { ZodType } from 'zod';
import type { JsonHandler } from '../../lib/bus/bus.js';
import { authed, jsonPost } from '../support/embedded.js';
import { creditTotals } from '../support/ledger.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';

// Issue 27 item 6: a worker's reply on the bus is bounded (64 MiB, as on NATS). In the embedded default a
// fetch worker whose result is over the budget (standing in for a huge capture or screenshot) must give
// the caller a problem it can act on, with a request id the log resolves, and cost nothing.
const MARK = 'reply-over-budget';

let site: TargetSite;

beforeAll(async () => {
  // Every worker the embedded default starts serves through this bus method: the marked job's real
  // result comes back with a body one byte past the budget.
  const serveJson = MemoryBus.prototype.serveJson;
  vi.spyOn(MemoryBus.prototype, 'serveJson').mockImplementation(function (this: MemoryBus, subject: string, group: string, schema: ZodType<unknown>, handler: JsonHandler<unknown>, responderId: string) {
    const padded: JsonHandler<unknown> = async (message) => {
      const reply = await handler(message);
      if (!JSON.stringify(message).includes(MARK) || typeof reply !== 'object' || reply === null) return reply;
      return { ...reply, body: 'x'.repeat(MAX_REPLY_BYTES + 1) };
    };
    return serveJson.call(this, subject, group, schema, padded, responderId);
  });
  site = await startTargetSite();
});
// After-hooks run last registered first: the service stopped, then the mocks restored and the site closed.
afterAll(async () => {
  vi.restoreAllMocks();
  await site?.close();
});
const service = embeddedForSuite({ engines: ['fetch'] });

const ledger = () => creditTotals(service.db);

describe('the bus reply budget, end to end', () => {
  it('answers a result over 64 MiB with RENDER_FAILED naming the budget, logged under its id, charged nothing', async () => {
    const before = await ledger();
    const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: `${site.origin}/?${MARK}`, cache: false }));
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    const problem = (await response.json()) as { code: string; detail: string };
    expect(problem.code).toBe('ERR::ENGINE::RENDER_FAILED');
    expect(problem.detail).toContain(`over the ${MAX_REPLY_BYTES}-byte budget`);
    const requestId = response.headers.get('x-request-id');
    const logged = await fetch(`${service.url}/v1/requests/${requestId}`, authed(service.secret));
    expect(logged.status).toBe(200);
    expect(await ledger()).toEqual({ spent: before.spent, reserved: 0 });
  });

  it('keeps serving after it: the next scrape is answered and charged as usual', async () => {
    const before = await ledger();
    const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: `${site.origin}/`, cache: false }));
    expect(response.status).toBe(200);
    expect((await ledger()).spent).toBeGreaterThan(before.spent);
  });
});
