import { ServiceError } from '../../lib/errors/index.js';
import { answersWithEnvelope } from '../../lib/scrape/params.js';
import type { WorkerEnvelope } from '../../lib/protocol/index.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import type { ContentInput, ContentOutput } from './content-io.js';
import { buildEnvelope, type EnvelopeContent } from './build-envelope.js';
import { renderDocument, servedAsIs, type DocumentFormat } from './render.js';
import { needsJavaScript } from '../needs-javascript.js';

export type { ContentInput, ContentOutput } from './content-io.js';

const CONTENT_TYPES: Record<DocumentFormat, string> = {
  html: 'text/html; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  text: 'text/plain; charset=utf-8',
};

function isPdf(page: ContentInput['page']): boolean {
  return page.mediaType === 'application/pdf';
}

/** Cross-cutting rule 4 (docs/api-reference.md) allows only html, markdown, text or PDF document bodies: other bytes travel in the envelope. */
function refuseBinaryDocument(page: ContentInput['page'], format: string): never {
  throw new ServiceError(
    'ERR::REQUEST::CAPABILITY_UNSUPPORTED',
    `response_format=${format} cannot carry a ${page.mediaType || 'binary'} target; use response_format=json to get its bytes base64 in the envelope`,
    { targetStatus: page.status },
  );
}

/** Refusals that depend on the fetched page (rule syntax was already checked before the fetch). */
function refuseUnsupported(input: ContentInput): void {
  const { params, page } = input;
  if (params.extract_preset !== null) {
    throw new ServiceError('ERR::EXTRACT::INVALID_RULES', 'extract_preset: this deployment has no preset store', { targetStatus: page.status });
  }
  if (!isPdf(page)) return;
  const asked = [
    params.links && 'links',
    params.autoparse && 'autoparse',
    params.extract !== null && 'extract',
    params.ai_extract !== null && 'ai_extract',
    (params.response_format === 'markdown' || params.response_format === 'text') && `response_format=${params.response_format}`,
  ].filter((name): name is string => typeof name === 'string');
  if (asked.length > 0) {
    throw new ServiceError('ERR::REQUEST::CAPABILITY_UNSUPPORTED', `${asked.join(', ')} cannot be applied to a PDF target`, {
      targetStatus: page.status,
    });
  }
}

function pdfBody(input: ContentInput): string {
  if (input.extras.pdfBase64) return input.extras.pdfBase64;
  throw new ServiceError('ERR::ENGINE::RENDER_FAILED', 'the engine produced no PDF of the page', {
    targetStatus: input.page.status,
  });
}

/** What `content` carries: the asked format, or markdown for response_format=json. */
function contentFormat(params: ScrapeParams): DocumentFormat | 'pdf' {
  if (params.response_format === 'json') return 'markdown';
  return params.response_format;
}

function envelopeContent(input: ContentInput): EnvelopeContent {
  const format = contentFormat(input.params);
  if (format === 'pdf') return { format: 'pdf', content: pdfBody(input), encoding: 'base64' };
  if (input.page.text === null) {
    return { format: null, content: input.page.bodyBase64 ?? null, encoding: 'base64' };
  }
  return { format, content: null, encoding: 'utf8' };
}

/**
 * Turns a fetched page into the response body: html, markdown, text, pdf, or the JSON envelope.
 * Synchronous and pure; run it through ContentPool so a hostile page cannot stall the event loop.
 */
export function processContent(input: ContentInput): ContentOutput {
  const started = performance.now();
  refuseUnsupported(input);
  // Here with the rest of the page's work: on a content thread, or inline for a small page answered as fetched (ContentPool).
  return { ...outputFor(input, started), needsJavaScript: input.engine === 'fetch' && needsJavaScript(input.page.mediaType, input.page.text) };
}

function outputFor(input: ContentInput, started: number): Omit<ContentOutput, 'needsJavaScript'> {
  const { params, page } = input;
  if (answersWithEnvelope(params)) {
    const envelope = buildEnvelope(input, envelopeContent(input));
    const modelInput = modelMarkdown(input, envelope);
    // The envelope travels as an object; the gateway writes its JSON text once, with the fields it adds.
    return { contentType: 'application/json', body: '', bodyEncoding: 'utf8', envelope, extractMs: elapsed(started), warnings: envelope.warnings, modelInput };
  }
  if (params.response_format === 'pdf') {
    return { contentType: 'application/pdf', body: pdfBody(input), bodyEncoding: 'base64', envelope: null, extractMs: elapsed(started), warnings: [] };
  }
  if (page.text === null) {
    if (!isPdf(page)) refuseBinaryDocument(page, params.response_format);
    return { contentType: 'application/pdf', body: page.bodyBase64 ?? '', bodyEncoding: 'base64', envelope: null, extractMs: elapsed(started), warnings: [] };
  }
  const format = params.response_format === 'json' ? 'markdown' : params.response_format;
  const rendered = renderDocument({ finalUrl: page.finalUrl, text: page.text, mediaType: page.mediaType }, params, format);
  return { contentType: CONTENT_TYPES[format], body: rendered.content, bodyEncoding: 'utf8', envelope: null, extractMs: elapsed(started), warnings: rendered.warnings };
}

/** The markdown the gateway hands the extraction model, unless the envelope's content is that markdown already. */
function modelMarkdown(input: ContentInput, envelope: WorkerEnvelope): string | undefined {
  const { params, page } = input;
  if (params.ai_extract === null || page.text === null) return undefined;
  if (envelope.format === 'markdown' && envelope.content_encoding === 'utf8' && envelope.content !== null) return undefined;
  return renderDocument({ finalUrl: page.finalUrl, text: page.text, mediaType: page.mediaType }, params, 'markdown').content;
}

/**
 * The page is answered as fetched: a bare html (or non-HTML text) document with no selection, no
 * envelope and nothing from a browser. The pipeline then only runs the needs-JavaScript scan, which
 * is linear in the page's length (worker/needs-javascript.ts).
 */
export function answersAsFetched(input: ContentInput): input is ContentInput & { page: { text: string } } {
  const { params, page, extras } = input;
  if (page.text === null || answersWithEnvelope(params) || params.extract_preset !== null) return false;
  if (params.response_format !== 'html' || extras.screenshots || extras.network || extras.actionResults || extras.pdfBase64) return false;
  return servedAsIs(page.mediaType, params, 'html');
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
