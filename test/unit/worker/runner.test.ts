import { describe, expect, it } from 'vitest';
import { ScrapeResultSchema, type ScrapeJob } from '../../../lib/protocol/index.js';
import { processContent } from '../../../worker/content/pipeline.js';
import type { Engine, RawPage } from '../../../worker/engine.js';
import { runJob } from '../../../worker/runner.js';
import { wireJob } from '../../support/scrape-job.js';

const HTML = '<html><head><title>Tides</title></head><body><main><h1>Tides</h1><p>High water at noon.</p><a href="/next">next</a></main></body></html>';

function pageOf(job: ScrapeJob): RawPage {
  return {
    finalUrl: job.params.url,
    status: 200,
    headers: { 'content-type': 'text/html' },
    mediaType: 'text/html',
    text: HTML,
    body: Buffer.from(HTML),
    warnings: [],
    attempts: [],
    timeline: [],
    bytesIn: HTML.length,
    proxyBytes: 0,
    proxy: { source: 'direct', endpoint: null, country: null },
    upstreamMs: 1,
    blocked: null,
  };
}

const engine: Engine = {
  name: 'fetch',
  capacity: 1,
  start: async () => undefined,
  stop: async () => undefined,
  fetch: async (job) => pageOf(job),
};
const content = { run: async (input: Parameters<typeof processContent>[0]) => processContent(input) };
const context = { workerId: 'w', signal: new AbortController().signal };

function job(params: Record<string, unknown>): ScrapeJob {
  return wireJob({ engine: 'fetch', params: { url: 'https://example.com/tides', ...params }, budgetMs: 5000, requestId: 'r', projectId: 'p' });
}

describe('runJob', () => {
  it('sends the envelope once: as itself, with an empty body', async () => {
    const result = ScrapeResultSchema.parse(JSON.parse(JSON.stringify(await runJob(engine, content, job({ links: true }), context))));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.body).toBe('');
    expect(result.content_type).toBe('application/json');
    expect(result.envelope).toMatchObject({ url: 'https://example.com/tides', status: 200, format: 'html', links: ['https://example.com/next'] });
  });

  it('sends a document as the body, with no envelope', async () => {
    const result = await runJob(engine, content, job({ response_format: 'markdown' }), context);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.envelope).toBeNull();
    expect(result.body).toContain('High water at noon.');
    expect(result.content_type).toBe('text/markdown; charset=utf-8');
  });

  it('says whether the fetched page needs JavaScript (checked with the content, off the event loop)', async () => {
    const shell = '<html><body><div id="root"></div><script src="/app.js"></script></body></html>';
    const shellEngine: Engine = { ...engine, fetch: async (j) => ({ ...pageOf(j), text: shell, body: Buffer.from(shell) }) };
    const needs = await runJob(shellEngine, content, job({}), context);
    const usable = await runJob(engine, content, job({}), context);
    expect(needs.ok && needs.needs_javascript).toBe(true);
    expect(usable.ok && usable.needs_javascript).toBe(false);
  });
});
