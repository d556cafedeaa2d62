import { ActionsSchema, type Actions } from './actions-schema.js';
import { NetworkCaptureSchema, type NetworkCapture } from './network-capture-schema.js';
import { checkProxyUrl, checkTargetUrl, type EgressPolicy } from '../egress/policy.js';
import { ServiceError } from '../errors/index.js';
import { validateExtractRules } from '../extract/extract-rules.js';
import { AI_EXTRACT_DATA_KEY, checkAiExtractSchema } from './ai-extract-schema.js';
import { ScrapeInputSchema, type ScrapeInput } from './fields.js';
import { invalidParameter } from './issues.js';
import { decodeScrapeQuery } from './get-query.js';
import { applyProjectDefaults, checkFlagRules, normalise, type ProjectDefaults, type StructuredParameters } from './cross-field-rules.js';
import type { ScrapeParams } from './params-schema.js';

export type { ProjectDefaults } from './cross-field-rules.js';

export interface ParseOptions {
  projectDefaults: ProjectDefaults;
  egressPolicy: EgressPolicy;
  /** False for the top level of a batch body, where `url` is forbidden; the result's `url` is then ''. */
  allowUrl?: boolean;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkUrlPresence(input: ScrapeInput, allowUrl: boolean): string | null {
  const present = input.url !== null && input.url !== undefined;
  if (!allowUrl) {
    if (present) throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', 'url: not allowed at the top level of a batch body');
    return null;
  }
  if (!present) throw new ServiceError('ERR::REQUEST::MISSING_PARAMETER', 'url: required');
  return input.url ?? null;
}

/** Validates the structured parameters that belong to other modules; returns their normalised forms. */
function checkStructuredParameters(input: ScrapeInput): StructuredParameters {
  if (input.extract !== null && input.extract !== undefined) {
    const rules = validateExtractRules(input.extract);
    if (input.ai_extract !== null && input.ai_extract !== undefined && rules.fields.some((field) => field.name === AI_EXTRACT_DATA_KEY)) {
      throw new ServiceError('ERR::EXTRACT::INVALID_RULES', `extract.${AI_EXTRACT_DATA_KEY}: the field name is reserved when ai_extract is set (the model's answer goes there)`);
    }
  }
  if (input.ai_extract !== null && input.ai_extract !== undefined) checkAiExtractSchema(input.ai_extract);
  let actions: Actions | null = null;
  if (input.actions !== null && input.actions !== undefined) {
    const parsed = ActionsSchema.safeParse(input.actions);
    if (!parsed.success) throw invalidParameter(parsed.error, ['actions']);
    actions = parsed.data;
  }
  let networkCapture: NetworkCapture | null = null;
  if (input.network_capture !== null && input.network_capture !== undefined) {
    const parsed = NetworkCaptureSchema.safeParse(input.network_capture);
    if (!parsed.success) throw invalidParameter(parsed.error, ['network_capture']);
    networkCapture = parsed.data;
  }
  return { actions, network_capture: networkCapture };
}

/**
 * POST body -> normalised parameters. Pure and synchronous: nothing is spent, so every error here
 * costs 0 credits. Throws ServiceError (see docs/parameters.md for the full table).
 */
export function parseScrapeBody(body: unknown, options: ParseOptions): ScrapeParams {
  if (!isJsonObject(body)) throw new ServiceError('ERR::REQUEST::INVALID', 'request body must be a JSON object');
  const parsed = ScrapeInputSchema.safeParse(body);
  if (!parsed.success) throw invalidParameter(parsed.error);
  const rawUrl = checkUrlPresence(parsed.data, options.allowUrl ?? true);
  const url = rawUrl === null ? '' : checkTargetUrl(rawUrl, options.egressPolicy).href;
  const input = applyProjectDefaults(parsed.data, options.projectDefaults);
  if (input.proxy !== null && input.proxy !== undefined) checkProxyUrl(input.proxy, options.egressPolicy);
  checkFlagRules(input);
  const structured = checkStructuredParameters(input);
  return normalise(input, structured, url);
}

/** GET query (Express 5 `req.query`) -> normalised parameters, per the encoding of docs/parameters.md. */
export function parseScrapeQuery(query: Record<string, unknown>, options: ParseOptions): ScrapeParams {
  return parseScrapeBody(decodeScrapeQuery(query), options);
}

/** `X-Warning` values the parameters alone imply (docs/parameters.md: own proxy overrides the pool flags). */
export function parameterWarnings(params: ScrapeParams): string[] {
  const ignored = params.proxy !== null && (params.premium_proxy || params.proxy_country !== null);
  return ignored ? ['PROXY_FLAG_IGNORED'] : [];
}

/** docs/content.md: screenshot, autoparse, links, extract, ai_extract (and network capture) force the JSON envelope. */
export function answersWithEnvelope(params: ScrapeParams): boolean {
  return (
    params.response_format === 'json' ||
    params.screenshot ||
    params.autoparse ||
    params.links ||
    params.extract !== null ||
    params.extract_preset !== null ||
    params.ai_extract !== null ||
    params.network_capture !== null
  );
}
