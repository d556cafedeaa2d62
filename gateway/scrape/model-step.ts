import { emptyUsage, type ExtractionUsage } from '../../lib/ai/extractor.js';
import { cutToBudget } from '../../lib/ai/model-input.js';
import { ServiceError, toServiceError } from '../../lib/errors/index.js';
import type { ScrapeSuccess } from '../../lib/protocol/index.js';
import { AI_EXTRACT_DATA_KEY, modelSchema } from '../../lib/scrape/ai-extract-schema.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import type { GatewayContext } from '../context.js';

/** What the model step did, for the request log's `features.ai_extract` (docs/request-log.md). */
export interface ModelUse extends ExtractionUsage {
  model: string;
  ms: number;
  /** Characters of page markdown left out to fit AI_INPUT_MAX_CHARS. */
  input_cut_chars: number;
}

/** The model's object in `data`: alone it is `data`; beside extract or autoparse it sits under `ai_extract`. */
function withModelData(workerData: unknown, modelData: Record<string, unknown>, params: ScrapeParams): unknown {
  if (params.extract === null && !params.autoparse) return modelData;
  const base = typeof workerData === 'object' && workerData !== null ? workerData : {};
  return { ...base, [AI_EXTRACT_DATA_KEY]: modelData };
}

/** The result as the gateway keeps it: the model's markdown goes no further than this step. */
export function withoutModelInput(success: ScrapeSuccess): ScrapeSuccess {
  if (success.model_input === undefined) return success;
  const { model_input: _dropped, ...rest } = success;
  return rest;
}

/**
 * ai_extract on a page the worker returned (docs/ai-extract.md): its markdown, cut to the input
 * budget, goes to the deployment's model; the answer lands in `data`. Runs in the gateway, within the
 * scrape's time budget. Throws 502 ERR::EXTRACT::FAILED (or 503 when no model slot frees up); `use`
 * is filled as calls happen, so a failure still reports the tokens spent.
 */
export async function extractWithModel(
  context: GatewayContext,
  success: ScrapeSuccess,
  params: ScrapeParams,
  deadlineAt: number,
  onUse: (use: ModelUse) => void,
): Promise<{ success: ScrapeSuccess; warnings: string[] }> {
  const ai = context.ai;
  const aiExtract = params.ai_extract;
  if (!ai || aiExtract === null) throw new ServiceError('ERR::INTERNAL::UNAVAILABLE', 'ai_extract: no extraction model is configured');
  const envelope = success.envelope;
  if (!envelope) throw new ServiceError('ERR::INTERNAL::ERROR', 'ai_extract: the worker answered without the JSON envelope');
  if (success.model_input === undefined && envelope.content_encoding === 'base64') {
    // An image or other bytes: nothing a model could read, and nothing worth its tokens.
    throw new ServiceError('ERR::REQUEST::CAPABILITY_UNSUPPORTED', 'ai_extract cannot be applied to a binary target', { targetStatus: success.target_status });
  }
  const markdown = success.model_input ?? (envelope.format === 'markdown' && typeof envelope.content === 'string' ? envelope.content : '');
  const input = cutToBudget(markdown, ai.inputMaxChars);
  const use: ModelUse = { ...emptyUsage(), model: ai.model, ms: 0, input_cut_chars: input.cutChars };
  onUse(use);
  const started = Date.now();
  try {
    const data = await ai.extract({ prompt: aiExtract.prompt ?? null, schema: modelSchema(aiExtract), pageUrl: success.final_url, input, deadlineAt }, use);
    const answered = withoutModelInput(success);
    return {
      success: { ...answered, envelope: { ...envelope, data: withModelData(envelope.data, data, params) } },
      warnings: input.cutChars > 0 ? ['AI_INPUT_TRUNCATED'] : [],
    };
  } catch (error) {
    throw toServiceError(error).with({ targetStatus: success.target_status });
  } finally {
    use.ms = Date.now() - started;
  }
}
