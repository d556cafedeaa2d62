import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { startEmbedded } from '../support/embedded.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { counterValue, outcomeOf, scrape, spentMicro } from './extract-outcomes.js';

let site: TargetSite;
let model: ModelServer;

const PRODUCT_SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, price: { type: 'number' } },
  required: ['title', 'price'],
  additionalProperties: false,
};

beforeAll(async () => {
  [site, model] = await Promise.all([startTargetSite(), startModelServer()]);
});
afterAll(async () => {
  await site?.close();
  await model?.close();
});
const service = embeddedForSuite(() => ({
  engines: ['fetch'],
  env: { AI_BASE_URL: model.baseUrl, AI_MODEL: 'test-model', AI_API_KEY: 'sk-test', AI_TIMEOUT_MS: '1500', SCRAPE_BUDGET_MS: '20000' },
}));
beforeEach(() => model.reset());

const article = () => `${site.origin}/static/article.html`;

async function run(body: Record<string, unknown>) {
  const before = await spentMicro(service);
  return outcomeOf(service, await scrape(service, { url: article(), ...body }), before);
}

describe('ai_extract against a Chat Completions server', () => {
  it('asks with a strict json_schema, answers the object in data and charges the engine plus 4 credits', async () => {
    model.script({ content: JSON.stringify({ title: 'The article title', price: 12.5 }) });
    const tokensBefore = await counterValue(service, 'trawler_ai_extract_tokens_total', { kind: 'prompt' });
    const outcome = await run({ ai_extract: { prompt: 'The product title and its price', schema: PRODUCT_SCHEMA } });
    expect(outcome.status).toBe(200);
    expect(outcome.charged).toBe('5');
    expect(outcome.spent).toBe(5);
    expect(outcome.body).toMatchObject({ data: { title: 'The article title', price: 12.5 }, credits_charged: 5 });
    expect(outcome.entry).toMatchObject({ status: 'success', credits_micro: 5_000_000 });
    const usage = await fetch(`${service.url}/v1/usage`, { headers: { authorization: `Bearer ${service.secret}` } });
    expect(((await usage.json()) as { spent_micro: number }).spent_micro).toBe((await spentMicro(service)));
    const reconciliation = (await (await fetch(`${service.url}/v1/usage/reconciliation`, { headers: { authorization: `Bearer ${service.secret}` } })).json()) as { consistent: boolean };
    expect(reconciliation.consistent).toBe(true);
    expect(outcome.model).toMatchObject({ model: 'test-model', mode: 'json_schema', calls: 1, prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 });
    expect(await counterValue(service, 'trawler_ai_extract_tokens_total', { kind: 'prompt' })).toBe(tokensBefore + 100);
    const sent = model.requests[0];
    expect(sent.model).toBe('test-model');
    expect(model.authorizations[0]).toBe('Bearer sk-test');
    expect(sent.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'extraction', schema: PRODUCT_SCHEMA, strict: true } });
    // The page goes as main-content markdown: the article, not the navigation or the footer.
    const page = sent.messages.at(-1)?.content ?? '';
    expect(page).toContain('# The article title');
    expect(page).toContain('The product title and its price');
    expect(page).not.toContain('Footer text');
  });

  it('sends the whole page with main_content_only=false', async () => {
    const outcome = await run({ ai_extract: { prompt: 'The title' }, main_content_only: false });
    expect(outcome.status).toBe(200);
    expect(model.requests[0].messages.at(-1)?.content).toContain('Footer text');
  });

  it('asks json_object for a prompt without a schema, and sends an open schema non-strict', async () => {
    let outcome = await run({ ai_extract: { prompt: 'The title' } });
    expect(outcome.status).toBe(200);
    expect(outcome.body.data).toEqual({ title: 'The article title' });
    expect(model.requests[0].response_format).toEqual({ type: 'json_object' });
    expect(outcome.model).toMatchObject({ mode: 'json_object', calls: 1 });
    model.reset();
    outcome = await run({ ai_extract: { schema: { properties: { title: { type: 'string' } } } } });
    expect(outcome.status).toBe(200);
    expect(model.requests[0].response_format?.json_schema).toMatchObject({ strict: false, schema: { type: 'object' } });
  });

  it('retries a 429 after its Retry-After and charges once the model answers', async () => {
    model.script({ status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '1' } }, { content: '{"title":"T"}' });
    const outcome = await run({ ai_extract: { prompt: 'The title' } });
    expect(outcome).toMatchObject({ status: 200, charged: '5', spent: 5 });
    expect(outcome.entry).toMatchObject({ status: 'success', credits_micro: 5_000_000 });
    expect(outcome.model).toMatchObject({ calls: 2 });
    expect(model.requests).toHaveLength(2);
  });

  it('gives up at once when the Retry-After outlasts the scrape budget: 502 EXTRACT::FAILED at 0 credits', async () => {
    model.script({ status: 429, body: { error: { message: 'quota' } }, headers: { 'retry-after': '3600' } });
    const outcome = await run({ ai_extract: { prompt: 'The title' } });
    expect(outcome).toMatchObject({ status: 502, charged: '0', spent: 0 });
    expect(outcome.body).toMatchObject({ code: 'ERR::EXTRACT::FAILED', retryable: false, target_status: 200 });
    expect(String(outcome.body.detail)).toMatch(/429.*Retry-After 3600 s.*time budget/);
    expect(outcome.entry).toMatchObject({ status: 'failed', error_code: 'EXTRACT_FAILED', credits_micro: 0 });
    expect(outcome.model).toMatchObject({ calls: 1 });
  });

  it('retries a 500, and fails with 502 at 0 credits when the server keeps failing', async () => {
    model.script({ status: 500, body: { error: { message: 'boom' } } }, { content: '{"title":"T"}' });
    expect(await run({ ai_extract: { prompt: 'The title' } })).toMatchObject({ status: 200, charged: '5', spent: 5, model: { calls: 2 } });
    model.reset();
    model.fallback = () => ({ status: 503, body: { error: { message: 'overloaded' } } });
    try {
      const outcome = await run({ ai_extract: { prompt: 'The title' } });
      expect(outcome).toMatchObject({ status: 502, charged: '0', spent: 0, model: { calls: 4 } });
      expect(outcome.body).toMatchObject({ code: 'ERR::EXTRACT::FAILED' });
      expect(String(outcome.body.detail)).toContain('HTTP 503: overloaded, 4 times');
      expect(outcome.entry).toMatchObject({ error_code: 'EXTRACT_FAILED', credits_micro: 0 });
    } finally {
      model.fallback = () => ({ content: JSON.stringify({ title: 'The article title' }) });
    }
  });

  it('fails with 502 at 0 credits when the model does not answer within AI_TIMEOUT_MS', async () => {
    model.script({ hang: true });
    const outcome = await run({ ai_extract: { prompt: 'The title' } });
    expect(outcome).toMatchObject({ status: 502, charged: '0', spent: 0, model: { calls: 1 } });
    expect(outcome.body).toMatchObject({ code: 'ERR::EXTRACT::FAILED', detail: 'the model did not answer within 1500 ms' });
    expect(outcome.entry).toMatchObject({ status: 'failed', error_code: 'EXTRACT_FAILED', credits_micro: 0 });
  });

  it('repairs an answer that is not JSON once, and fails when the repair is not JSON either', async () => {
    model.script({ content: 'Sure! The title is The article title.' }, { content: '{"title":"The article title"}' });
    let outcome = await run({ ai_extract: { prompt: 'The title' } });
    expect(outcome).toMatchObject({ status: 200, charged: '5', model: { calls: 2, prompt_tokens: 200 } });
    // The repair carries the bad answer and what was wrong with it.
    expect(model.requests[1].messages.at(-2)).toEqual({ role: 'assistant', content: 'Sure! The title is The article title.' });
    expect(model.requests[1].messages.at(-1)?.content).toContain('is not a JSON object');
    model.reset();
    model.script({ content: '{"title": ' }, { content: 'still not json' });
    outcome = await run({ ai_extract: { prompt: 'The title' } });
    expect(outcome).toMatchObject({ status: 502, charged: '0', spent: 0, model: { calls: 2 } });
    expect(outcome.body.detail).toBe("the model's answer is not a JSON object (also after one repair attempt)");
    expect(outcome.entry).toMatchObject({ status: 'failed', error_code: 'EXTRACT_FAILED', credits_micro: 0 });
  });

  it('validates the answer against the schema: a violation is repaired once, then 502 naming it', async () => {
    const wrong = { content: JSON.stringify({ title: 'T', price: 'cheap' }) };
    model.script(wrong, wrong);
    const outcome = await run({ ai_extract: { schema: PRODUCT_SCHEMA } });
    expect(outcome).toMatchObject({ status: 502, charged: '0', spent: 0, model: { calls: 2 } });
    expect(outcome.body.detail).toBe("the model's answer does not match the schema: /price: must be number (also after one repair attempt)");
    expect(model.requests[1].messages.at(-1)?.content).toContain('/price: must be number');
    expect(outcome.entry).toMatchObject({ status: 'failed', error_code: 'EXTRACT_FAILED', credits_micro: 0 });
  });

  it('reads a refusal as a failure, at 0 credits', async () => {
    model.script({ content: '', refusal: 'I cannot help with that.' });
    const outcome = await run({ ai_extract: { prompt: 'The title' } });
    expect(outcome).toMatchObject({ status: 502, charged: '0', spent: 0 });
    expect(outcome.body.detail).toBe('the model refused: I cannot help with that.');
    expect(outcome.entry).toMatchObject({ status: 'failed', error_code: 'EXTRACT_FAILED', credits_micro: 0 });
  });

  it('takes ai_extract as URL-encoded JSON on GET /v1/scrape', async () => {
    const before = await spentMicro(service);
    const query = new URLSearchParams({ url: article(), cache: 'false', ai_extract: JSON.stringify({ prompt: 'The title' }) });
    const response = await fetch(`${service.url}/v1/scrape?${query}`, { headers: { authorization: `Bearer ${service.secret}` } });
    const outcome = await outcomeOf(service, response, before);
    expect(outcome).toMatchObject({ status: 200, charged: '5', spent: 5, body: { data: { title: 'The article title' } } });
  });

  it('puts the model object under data.ai_extract beside extract', async () => {
    const outcome = await run({ extract: { heading: 'h1' }, ai_extract: { prompt: 'The title' } });
    expect(outcome.status).toBe(200);
    expect(outcome.body.data).toEqual({ heading: 'The article title', ai_extract: { title: 'The article title' } });
    expect(outcome.charged).toBe('5');
  });

  it('does not ask the model about a page that is not billable: the page is answered at 0 credits', async () => {
    const before = await spentMicro(service);
    const response = await scrape(service, { url: `${site.origin}/status/500`, ai_extract: { prompt: 'The title' } });
    const outcome = await outcomeOf(service, response, before);
    expect(outcome).toMatchObject({ status: 200, charged: '0', spent: 0, model: null });
    expect(model.requests).toHaveLength(0);
  });

  it('refuses a bad ai_extract before fetching, at 0 credits', async () => {
    const hits = site.hits('/static/article.html');
    const cases: Array<[unknown, number, string, RegExp]> = [
      [{ schema: { type: 'object', properties: { a: { type: 'strng' } } } }, 400, 'ERR::EXTRACT::INVALID_RULES', /^ai_extract\.schema: cannot be compiled/],
      [{ schema: { type: 'array' } }, 400, 'ERR::EXTRACT::INVALID_RULES', /^ai_extract\.schema: the root must describe an object/],
      [{ prompt: 'x', temperature: 1 }, 400, 'ERR::REQUEST::INVALID_PARAMETER', /ai_extract/],
      [{}, 400, 'ERR::REQUEST::INVALID_PARAMETER', /ai_extract/],
    ];
    for (const [aiExtract, status, code, detail] of cases) {
      const before = await spentMicro(service);
      const response = await scrape(service, { url: article(), ai_extract: aiExtract });
      const body = (await response.json()) as { code: string; detail: string };
      expect([response.status, body.code]).toEqual([status, code]);
      expect(body.detail).toMatch(detail);
      expect(response.headers.get('x-credits-charged')).toBe('0');
      expect(await spentMicro(service)).toBe(before);
    }
    const clash = await scrape(service, { url: article(), extract: { ai_extract: 'h1' }, ai_extract: { prompt: 'x' } });
    expect(clash.status).toBe(400);
    expect(((await clash.json()) as { detail: string }).detail).toMatch(/^extract\.ai_extract: the field name is reserved/);
    expect(site.hits('/static/article.html')).toBe(hits);
    expect(model.requests).toHaveLength(0);
  });

  it('refuses a PDF or an image after the fetch, at 0 credits, without calling the model', async () => {
    const image = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3])));
    await new Promise<void>((resolve) => image.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => image.close(() => resolve())));
    for (const url of [`${site.origin}/pdf`, `http://127.0.0.1:${(image.address() as AddressInfo).port}/x.png`]) {
      const before = await spentMicro(service);
      const outcome = await outcomeOf(service, await scrape(service, { url, ai_extract: { prompt: 'The title' } }), before);
      expect(outcome).toMatchObject({ status: 400, charged: '0', spent: 0, body: { code: 'ERR::REQUEST::CAPABILITY_UNSUPPORTED', target_status: 200 } });
      expect(String(outcome.body.detail)).toMatch(/ai_extract/);
      expect(outcome.entry).toMatchObject({ status: 'rejected', credits_micro: 0 });
    }
    expect(model.requests).toHaveLength(0);
  });

  it('cuts a long page to the input budget at a block boundary and says so', async () => {
    const paragraphs = Array.from({ length: 400 }, (_, i) => `<p>Paragraph ${i} ${'word '.repeat(30)}</p>`).join('');
    const longPage = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><main><article><h1>Long</h1>${paragraphs}</article></main></body></html>`));
    await new Promise<void>((resolve) => longPage.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => longPage.close(() => resolve())));
    const url = `http://127.0.0.1:${(longPage.address() as AddressInfo).port}/long`;
    const before = await spentMicro(service);
    const response = await scrape(service, { url, ai_extract: { prompt: 'The heading' } });
    const outcome = await outcomeOf(service, response, before);
    expect(outcome.status).toBe(200);
    expect(response.headers.get('x-warning')).toContain('AI_INPUT_TRUNCATED');
    const page = model.requests[0].messages.at(-1)?.content ?? '';
    expect(page).toMatch(/Paragraph \d+ (word ){29}word\s*$/);
    expect(Number(outcome.model?.input_cut_chars)).toBeGreaterThan(0);
  });
});

describe('a server that refuses json_schema', () => {
  it('falls back to json_object with the schema in the prompt, and remembers it', async () => {
    const refusing = await startModelServer();
    refusing.fallback = (request) =>
      request.response_format?.type === 'json_schema'
        ? { status: 400, body: { error: { message: "response_format type 'json_schema' is not supported" } } }
        : { content: JSON.stringify({ title: 'The article title', price: 3 }) };
    const other = await startEmbedded({ engines: ['fetch'], env: { AI_BASE_URL: refusing.baseUrl, AI_MODEL: 'old-server' } });
    try {
      for (const round of [1, 2]) {
        refusing.reset();
        const before = await spentMicro(other);
        const response = await scrape(other, { url: article(), ai_extract: { schema: PRODUCT_SCHEMA } });
        const outcome = await outcomeOf(other, response, before);
        expect(outcome).toMatchObject({ status: 200, charged: '5', spent: 5, body: { data: { title: 'The article title', price: 3 } } });
        expect(outcome.model).toMatchObject({ mode: 'json_object' });
        const formats = refusing.requests.map((r) => r.response_format?.type);
        expect(formats).toEqual(round === 1 ? ['json_schema', 'json_object'] : ['json_object']);
        expect(refusing.requests.at(-1)?.messages[0].content).toContain(JSON.stringify(PRODUCT_SCHEMA));
        expect(refusing.authorizations.at(-1)).toBeUndefined();
      }
    } finally {
      await other.stop();
      await refusing.close();
    }
  });
});

describe('without a model', () => {
  it('answers 503 ERR::INTERNAL::UNAVAILABLE before fetching, at 0 credits', async () => {
    const bare = await startEmbedded({ engines: ['fetch'] });
    try {
      const hits = site.hits('/static/article.html');
      const before = await spentMicro(bare);
      const response = await scrape(bare, { url: article(), ai_extract: { prompt: 'The title' } });
      const outcome = await outcomeOf(bare, response, before);
      expect(outcome).toMatchObject({ status: 503, charged: '0', spent: 0, body: { code: 'ERR::INTERNAL::UNAVAILABLE', retryable: true } });
      expect(site.hits('/static/article.html')).toBe(hits);
    } finally {
      await bare.stop();
    }
  });
});
