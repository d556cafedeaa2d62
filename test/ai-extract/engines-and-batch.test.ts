import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BATCH_ENV, BatchClient, ledger, ledgerOnceReleased, type Json } from '../batch/batch-client.js';
import { startJsSite, type JsSite } from '../support/js-pages.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { outcomeOf, scrape, spentMicro } from './extract-outcomes.js';

let site: TargetSite;
let jsSite: JsSite;
let model: ModelServer;

/** The model answers with the first line of the page it was given, so a test sees what it read; "FAIL" in the instructions gets prose, repair or not. */
function echoFirstLine(request: { messages: Array<{ content: string }> }) {
  const user = request.messages[1]?.content ?? '';
  if (user.includes('Instructions: FAIL')) return { content: 'no json here' };
  const page = user.split('Page content as markdown')[1]?.split('\n\n').slice(1).join('\n\n') ?? '';
  return { content: JSON.stringify({ first_line: page.split('\n').find((line) => line.trim() !== '') ?? null }) };
}

beforeAll(async () => {
  [site, jsSite, model] = await Promise.all([startTargetSite(), startJsSite(), startModelServer()]);
});
afterAll(async () => {
  await Promise.all([site?.close(), jsSite?.close(), model?.close()]);
});
const service = embeddedForSuite(() => ({ engines: ['fetch', 'obscura', 'chromium'], env: { ...BATCH_ENV, AI_BASE_URL: model.baseUrl, AI_MODEL: 'm' } }));
beforeEach(() => {
  model.reset();
  model.fallback = echoFirstLine;
});

describe('ai_extract on every engine', () => {
  it.each([
    ['obscura', { js_render: true }, 7],
    ['chromium', { engine: 'chromium' }, 12],
  ] as const)('reads the rendered page on %s and charges its price plus 4', async (engine, flags, credits) => {
    const before = await spentMicro(service);
    const response = await scrape(service, { url: `${jsSite.origin}/client-rendered`, ...flags, ai_extract: { prompt: 'The first line' } });
    const outcome = await outcomeOf(service, response, before);
    expect(response.headers.get('x-engine')).toBe(engine);
    expect(outcome).toMatchObject({ status: 200, charged: String(credits), spent: credits, model: { calls: 1 } });
    expect(model.requests[0].messages.at(-1)?.content).toContain('Rendered by JS');
  });

  it('escalates under mode=auto and charges the serving rung plus 4', async () => {
    const before = await spentMicro(service);
    const response = await scrape(service, { url: `${jsSite.origin}/client-rendered`, mode: 'auto', ai_extract: { prompt: 'The first line' } });
    const outcome = await outcomeOf(service, response, before);
    expect(response.headers.get('x-engine')).toBe('obscura');
    expect(outcome).toMatchObject({ status: 200, charged: '7', spent: 7 });
    // Only the usable rung's page went to the model.
    expect(model.requests).toHaveLength(1);
  });
});

describe('ai_extract in batch items', () => {
  it('runs job-level and per-item ai_extract, charging 5 per success and 0 for a failed extraction', async () => {
    const client = new BatchClient(service);
    const before = await ledger(service);
    const created = await client.submit({
      cache: false,
      ai_extract: { prompt: 'The first line' },
      items: [
        { url: `${site.origin}/static/article.html` },
        { url: `${site.origin}/`, ai_extract: { prompt: 'The heading', schema: { type: 'object', properties: { first_line: { type: 'string' } } } } },
        { url: `${site.origin}/static/article.html`, ai_extract: { prompt: 'FAIL' } },
      ],
    });
    // The hold is every item's dearest outcome: the fetch engine plus the model, 5 credits each.
    expect(created).toMatchObject({ estimated_credits: 15, estimated_credits_micro: 15_000_000 });
    const job = await client.waitTerminal(created.id as string);
    expect(job.progress).toMatchObject({ succeeded: 2, failed: 1, credits_charged: 10, credits_charged_micro: 10_000_000 });
    const after = await ledgerOnceReleased(service, before.reserved);
    expect(after.spent - before.spent).toBe(10_000_000);
    const { lines } = await client.results(created.id as string);
    expect(lines[0]).toMatchObject({ status: 'succeeded', credits_micro: 5_000_000 });
    const envelopeOf = (line: Json) => JSON.parse((line.result as { content: string }).content) as Json;
    expect(envelopeOf(lines[0])).toMatchObject({ data: { first_line: expect.stringMatching(/^#+ An article$/) }, credits_charged: 5 });
    expect(envelopeOf(lines[1])).toMatchObject({ data: { first_line: expect.stringMatching(/^#+ Hello from the target$/) }, credits_charged: 5 });
    expect(lines[2]).toMatchObject({ status: 'failed', credits_micro: 0, attempts: 1, error: { code: 'ERR::EXTRACT::FAILED', retryable: false } });
    for (const line of lines) {
      const entry = (await (await client.get(`/v1/requests/${line.request_id as string}`)).json()) as { credits_micro: number; features: Json };
      expect(entry.credits_micro).toBe(line.credits_micro);
      expect(entry.features.ai_extract).toMatchObject({ model: 'm', prompt_tokens: expect.any(Number) });
    }
  });

  it('refuses a batch whose item has an uncompilable schema, naming the item, before anything is held', async () => {
    const client = new BatchClient(service);
    const before = await ledger(service);
    const response = await client.post('/v1/batch', {
      items: [{ url: `${site.origin}/` }, { url: `${site.origin}/`, ai_extract: { schema: { type: 'object', required: 'title' } } }],
    });
    const body = (await response.json()) as { code: string; detail: string };
    expect(response.status).toBe(400);
    expect(body.code).toBe('ERR::EXTRACT::INVALID_RULES');
    expect(body.detail).toMatch(/^Item 1: ai_extract\.schema: cannot be compiled/);
    expect(await ledger(service)).toEqual(before);
  });
});
