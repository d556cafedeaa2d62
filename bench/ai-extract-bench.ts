/**
 * ai_extract's added latency (issue 33): the same page scraped with response_format=json and with
 * ai_extract, against a local Chat Completions server that answers after a fixed delay, beside that
 * server's own time measured by calling it directly. Added latency = (with - without) - model call.
 * Embedded service in this process; all sides measured interleaved in one run. Prints figures; not a test.
 */
import { startEmbedded, jsonPost } from '../test/support/embedded.js';
import { startModelServer } from '../test/support/model-server.js';
import { startTargetSite } from '../test/support/target-site.js';

const N = Number(process.env.BENCH_REQUESTS ?? 100);
const MODEL_DELAY_MS = Number(process.env.BENCH_MODEL_DELAY_MS ?? 50);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timed(run: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

const [site, model] = await Promise.all([startTargetSite(), startModelServer()]);
model.fallback = () => ({ delayMs: MODEL_DELAY_MS, then: { content: JSON.stringify({ title: 'The article title' }) } });
const service = await startEmbedded({ engines: ['fetch'], env: { AI_BASE_URL: model.baseUrl, AI_MODEL: 'bench', DEFAULT_RATE_LIMIT_PER_SECOND: '10000' }, checkBusMessages: false });
const page = `${site.origin}/static/article.html`;
const scrape = (extra: Record<string, unknown>) => async () => {
  const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: page, cache: false, response_format: 'json', ...extra }));
  if (response.status !== 200) throw new Error(`scrape answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
};
const sides = {
  'model server called directly': async () => {
    const response = await fetch(`${model.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'x' }], response_format: { type: 'json_object' } }),
    });
    await response.arrayBuffer();
  },
  'scrape, response_format=json': scrape({}),
  'scrape with ai_extract': scrape({ ai_extract: { prompt: 'The title' } }),
  'scrape with ai_extract + schema': scrape({ ai_extract: { schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false } } }),
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((name) => [name, []]));
for (let i = 0; i < 20; i += 1) for (const run of Object.values(sides)) await run();
for (let i = 0; i < N; i += 1) for (const [name, run] of Object.entries(sides)) times[name].push(await timed(run));

console.log(`ai_extract: ${N} requests per side, interleaved; the model server answers after ${MODEL_DELAY_MS} ms`);
console.log('side                                 p50 ms   p95 ms');
for (const [name, ms] of Object.entries(times)) {
  console.log(`${name.padEnd(36)} ${percentile(ms, 50).toFixed(1).padStart(7)}  ${percentile(ms, 95).toFixed(1).padStart(7)}`);
}
const p50 = (name: string) => percentile(times[name], 50);
const added = p50('scrape with ai_extract') - p50('scrape, response_format=json') - p50('model server called directly');
console.log(`added latency of the extraction path (p50, beyond the model's own time): ${added.toFixed(1)} ms`);
await service.stop();
await Promise.all([site.close(), model.close()]);
