import { ServiceError } from '../../lib/errors/index.js';
import { validateExtractRules } from '../../lib/extract/extract-rules.js';
import { emptyMetadata } from './metadata/index.js';
import type { WorkerEnvelope } from '../../lib/protocol/index.js';
import type { ContentInput } from './content-io.js';
import { analysePage, type Analysis, type DocumentFormat } from './render.js';

/** What `content` of the envelope carries, decided by the pipeline from response_format and the page. */
export interface EnvelopeContent {
  format: DocumentFormat | 'pdf' | null;
  /** Already known (pdf, binary body) or null to be rendered from the page. */
  content: string | null;
  encoding: 'utf8' | 'base64';
}

function emptyAnalysis(): Analysis {
  return { content: null, metadata: emptyMetadata(), links: null, autoparse: null, extracted: null, emptyFields: [], warnings: [] };
}

/** Extract fields at the top of `data`; autoparse alone fills `data`, beside extract it sits under `autoparse`. */
function dataOf(analysis: Analysis): Record<string, unknown> | null {
  if (analysis.extracted && analysis.autoparse) {
    if (Object.hasOwn(analysis.extracted, 'autoparse')) {
      throw new ServiceError('ERR::EXTRACT::INVALID_RULES', 'extract.autoparse: the field name is reserved when autoparse=true');
    }
    return { ...analysis.extracted, autoparse: analysis.autoparse };
  }
  return analysis.extracted ?? analysis.autoparse;
}

/**
 * The JSON envelope (docs/content.md lists every field). The gateway adds request_id and fills
 * diagnostics.attempts; everything else is decided here.
 */
export function buildEnvelope(input: ContentInput, asked: EnvelopeContent): WorkerEnvelope {
  const { page, params, extras } = input;
  const analysis =
    page.text !== null
      ? analysePage({ finalUrl: page.finalUrl, text: page.text, mediaType: page.mediaType }, params, {
          format: asked.content === null && asked.format !== 'pdf' ? asked.format : null,
          metadata: true,
          links: params.links,
          autoparse: params.autoparse,
          extract: params.extract === null ? null : validateExtractRules(params.extract),
        })
      : emptyAnalysis();
  return {
    url: params.url,
    final_url: page.finalUrl,
    status: page.status,
    engine: input.engine,
    format: asked.format,
    content: asked.content ?? analysis.content,
    content_encoding: asked.encoding,
    metadata: { ...analysis.metadata, content_type: page.mediaType },
    data: dataOf(analysis),
    empty_fields: analysis.emptyFields,
    links: analysis.links,
    network: extras.network ?? null,
    screenshots: extras.screenshots ?? (params.screenshot ? [] : null),
    action_results: extras.actionResults ?? null,
    warnings: analysis.warnings,
    diagnostics: { attempts: [] },
  };
}
