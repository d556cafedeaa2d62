import { ServiceError, toServiceError } from '../lib/errors/index.js';
import { SCRAPE_RESULT_TYPE, type ScrapeFailure, type ScrapeJob, type ScrapeResult } from '../lib/protocol/index.js';
import type { ContentInput, ContentOutput } from './content/pipeline.js';
import type { Engine, EngineContext, RawPage } from './engine.js';
import { routeOf } from './egress/redact.js';

export interface ContentRunner {
  run(input: ContentInput): Promise<ContentOutput>;
}

/**
 * One job on one engine, then the content pipeline, the same way for every engine. Never throws:
 * every failure becomes a wire failure carrying the catalogue code and diagnostics.
 */
export async function runJob(engine: Engine, content: ContentRunner, job: ScrapeJob, context: EngineContext): Promise<ScrapeResult> {
  const startedAt = Date.now();
  const queueMs = Math.max(0, startedAt - job.dispatched_at);
  let page: RawPage | null = null;
  try {
    page = await engine.fetch(job, context);
    const engineMs = Date.now() - startedAt;
    if (page.blocked) {
      throw new ServiceError('ERR::UPSTREAM::CHALLENGE', `${page.blocked.vendor} bot challenge served (${page.blocked.signal})`, {
        targetStatus: page.status,
        diagnostics: {
          engine: engine.name,
          attempts: page.attempts,
          timeline: [...page.timeline, { stage: 'challenge', ms: 0, ok: false, detail: `${page.blocked.vendor}: ${page.blocked.rule}` }],
          failed_at: 'challenge',
          hint: 'The site served a bot challenge; a browser engine or another exit may get through.',
        },
      });
    }
    const output = await content.run({
      page: {
        finalUrl: page.finalUrl,
        status: page.status,
        mediaType: page.mediaType,
        text: page.text,
        bodyBase64: page.text === null ? page.body.toString('base64') : undefined,
      },
      params: job.params,
      extras: {
        screenshots: page.screenshots,
        network: page.network,
        actionResults: page.actionResults,
        pdfBase64: page.pdf?.toString('base64'),
      },
      engine: engine.name,
    });
    return {
      type: SCRAPE_RESULT_TYPE,
      ok: true,
      engine: engine.name,
      worker_id: context.workerId,
      attempts: page.attempts,
      timeline: page.timeline,
      spans: { queue_ms: queueMs, engine_ms: engineMs, upstream_ms: page.upstreamMs, extract_ms: output.extractMs },
      bytes_in: page.bytesIn,
      proxy_bytes: page.proxyBytes,
      proxy: page.proxy,
      blocked: null,
      warnings: [...new Set([...page.warnings, ...output.warnings])],
      target_status: page.status,
      final_url: page.finalUrl,
      content_type: output.contentType,
      body: output.body,
      body_encoding: output.bodyEncoding,
      envelope: output.envelope,
      needs_javascript: output.needsJavaScript,
      screenshot_delivered: wantsScreenshot(job) ? (page.screenshots?.length ?? 0) > 0 : null,
      session: page.session ?? null,
      model_input: output.modelInput,
    };
  } catch (error) {
    const serviceError = toServiceError(error);
    if (serviceError.code === 'ERR::INTERNAL::ERROR') {
      context.logger?.error({ err: serviceError.cause ?? error, request_id: job.request_id, worker_id: context.workerId }, 'job failed unexpectedly');
    }
    return failure(engine, context, job, serviceError, page, queueMs, Date.now() - startedAt);
  }
}

function failure(
  engine: Engine,
  context: EngineContext,
  job: ScrapeJob,
  error: ServiceError,
  page: RawPage | null,
  queueMs: number,
  engineMs: number,
): ScrapeFailure {
  const diagnostics = error.diagnostics ?? {};
  const wire = error.with({
    diagnostics: {
      ...diagnostics,
      engine: diagnostics.engine ?? engine.name,
      budget_ms: diagnostics.budget_ms ?? job.budget_ms,
      elapsed_ms: diagnostics.elapsed_ms ?? engineMs,
    },
  }).toWire();
  return {
    type: SCRAPE_RESULT_TYPE,
    ok: false,
    engine: engine.name,
    worker_id: context.workerId,
    attempts: page?.attempts ?? diagnostics.attempts ?? [],
    timeline: page?.timeline ?? diagnostics.timeline ?? [],
    spans: { queue_ms: queueMs, engine_ms: engineMs, upstream_ms: page?.upstreamMs ?? null, extract_ms: null },
    bytes_in: page?.bytesIn ?? 0,
    proxy_bytes: page?.proxyBytes ?? 0,
    proxy: page?.proxy ?? routeOf(job).use,
    blocked: page?.blocked ?? null,
    warnings: page?.warnings ?? [],
    error: wire,
  };
}

function wantsScreenshot(job: ScrapeJob): boolean {
  return job.params.screenshot;
}
