import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_PREFIX } from '../../lib/metrics.js';
import { jsonPost } from '../support/embedded.js';
import { creditTotals } from '../support/ledger.js';
import { embeddedForSuite } from '../support/suite-service.js';

// A page PostgreSQL's jsonb could not hold (NUL) must still answer with its charge, and the ledger
// must say exactly what the answers said, however often the client asks.
const NUL_PAGE = '<!DOCTYPE html><html><body><p>before\u0000after</p></body></html>';

const service = embeddedForSuite({ engines: ['fetch'] });
let target: Server;
let origin: string;

beforeAll(async () => {
  target = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(NUL_PAGE));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => target?.close(resolve));
});

const ledger = () => creditTotals(service.db);

/** Scrapes and returns what the answer says it charged, in micro-credits. */
async function scrape(body: Record<string, unknown>): Promise<{ response: Response; text: string; chargedMicro: number }> {
  const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, body));
  const text = await response.text();
  return { response, text, chargedMicro: Math.round(Number(response.headers.get('x-credits-charged') ?? '0') * 1_000_000) };
}

describe('pages the store cannot hold as jsonb', () => {
  it('a NUL page with the cache on answers 200 with its charge, is served from the cache, and the ledger agrees every time', async () => {
    const before = await ledger();
    let answered = 0;
    const first = await scrape({ url: `${origin}/nul` });
    expect(first.response.status, first.text).toBe(200);
    expect(first.response.headers.get('cache-state')).toBe('miss');
    expect(first.chargedMicro).toBe(1_000_000);
    expect(first.text).toContain('before\u0000after');
    answered += first.chargedMicro;
    for (let retry = 0; retry < 3; retry += 1) {
      const again = await scrape({ url: `${origin}/nul` });
      expect(again.response.status).toBe(200);
      expect(again.response.headers.get('cache-state')).toBe('hit');
      expect(again.text).toBe(first.text);
      answered += again.chargedMicro;
    }
    const after = await ledger();
    expect(after.reserved).toBe(0);
    expect(after.spent - before.spent).toBe(answered);
  });

  it('a cache write that fails never fails the scrape: 200 with its charge, logged and counted', async () => {
    await service.db.exec(`
      CREATE FUNCTION refuse_cache_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'cache refused'; END $$;
      CREATE TRIGGER refuse_cache_write BEFORE INSERT OR UPDATE ON scrape_cache FOR EACH ROW EXECUTE FUNCTION refuse_cache_write();`);
    try {
      const before = await ledger();
      const answer = await scrape({ url: `${origin}/refused` });
      expect(answer.response.status, answer.text).toBe(200);
      expect(answer.chargedMicro).toBe(1_000_000);
      const after = await ledger();
      expect(after).toEqual({ spent: before.spent + answer.chargedMicro, reserved: 0 });
      const metric = await service.registry.getSingleMetric(`${METRIC_PREFIX}cache_write_failures_total`)?.get();
      expect(metric?.values[0]?.value).toBe(1);
      const miss = await scrape({ url: `${origin}/refused` });
      expect(miss.response.headers.get('cache-state')).toBe('miss');
    } finally {
      await service.db.exec('DROP TRIGGER refuse_cache_write ON scrape_cache; DROP FUNCTION refuse_cache_write();');
    }
  });
});
