import { z } from 'zod';
import { storableString } from '../../lib/validation/storable.js';
import type { EgressPolicy } from '../../lib/egress/policy.js';
import { ServiceError } from '../../lib/errors/index.js';
import { BATCH_SPLIT_HINT } from '../middleware/json-body.js';
import type { Deployment } from '../../lib/scrape/engine-selection.js';
import { invalidParameter } from '../../lib/scrape/issues.js';
import type { ParseOptions, ProjectDefaults } from '../../lib/scrape/params.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import { planAndPrice, type PlanContext } from '../scrape/plan-and-price.js';
import { itemParams, parseJobParams } from './item-params.js';

export const MAX_ITEMS_PER_CALL = 10_000;
export const MAX_ITEMS_PER_JOB = 100_000;
export const MAX_JOB_PARAMS_BYTES = 65_536;
export const MAX_ITEM_OVERRIDES_BYTES = 8_192;
export const MIN_CONCURRENCY = 1;
export const MAX_CONCURRENCY = 50;
export const DEFAULT_CONCURRENCY = 10;
export const DEFAULT_PRIORITY = 100;
export const DEFAULT_MAX_ATTEMPTS = 3;
const NAME_MAX_CHARS = 256;
const EXTERNAL_ID_MAX_CHARS = 1024;
const WEBHOOK_ID_MAX_CHARS = 64;

/** Batch body fields that are not scrape parameters (`BatchSubmission` in the API reference; docs/batch.md). */
export const RunControlsSchema = z.strictObject({
  name: storableString().max(NAME_MAX_CHARS).nullish(),
  urls: z.array(z.unknown()).nullish(),
  items: z.array(z.unknown()).nullish(),
  concurrency: z.number().int().nullish(),
  priority: z.number().int().min(0).max(1000).nullish(),
  max_attempts: z.number().int().min(1).max(10).nullish(),
  failure_threshold: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullish(),
  credit_budget: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER / 1_000_000).nullish(),
  webhook_endpoint_id: storableString().max(WEBHOOK_ID_MAX_CHARS).nullish(),
  open: z.boolean().nullish(),
});
type RunControls = z.infer<typeof RunControlsSchema>;
const RUN_CONTROL_NAMES = new Set(Object.keys(RunControlsSchema.shape));
const ITEM_LISTS = new Set(['urls', 'items']);

export const ItemSchema = z.looseObject({
  url: z.string({ error: 'must be a string' }),
  external_id: storableString().max(EXTERNAL_ID_MAX_CHARS).nullish(),
});

export interface ParsedItem {
  url: string;
  external_id: string | null;
  overrides: Record<string, unknown>;
  holdMicro: number;
}

export interface ParsedSubmission {
  controls: RunControls;
  /** Job-level scrape parameters as sent (without `url`). */
  jobParams: Record<string, unknown>;
  items: ParsedItem[];
}

export interface SubmissionContext {
  projectDefaults: ProjectDefaults;
  egressPolicy: EgressPolicy;
  deployment: Deployment;
  /** The session of a job with a top-level `session_id` (looked up by the caller): it pins the engine and sets the price column. */
  session?: PlanContext['session'];
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A create or append body -> validated run controls and items, each item routed and priced (its
 * dearest outcome, never the camoufox climb: bot-challenge rule 7). A bad item N fails the whole call
 * with `Item N:` (0-based index in this call) in `detail`. Nothing is spent here.
 */
export function parseSubmission(body: unknown, context: SubmissionContext, jobParamsForItems?: Record<string, unknown>): ParsedSubmission {
  if (!isJsonObject(body)) throw new ServiceError('ERR::REQUEST::INVALID', 'request body must be a JSON object');
  const appending = jobParamsForItems !== undefined;
  const controlInput: Record<string, unknown> = {};
  const jobParams: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    if (!RUN_CONTROL_NAMES.has(name)) jobParams[name] = value;
    // An append's run controls other than its items are accepted and ignored, whatever their value.
    else if (!appending || ITEM_LISTS.has(name)) controlInput[name] = value;
  }
  const parsed = RunControlsSchema.safeParse(controlInput);
  if (!parsed.success) throw invalidParameter(parsed.error);
  const controls = parsed.data;
  if (Buffer.byteLength(JSON.stringify(jobParams)) > MAX_JOB_PARAMS_BYTES) {
    throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `job-level parameters: at most ${MAX_JOB_PARAMS_BYTES} bytes serialised`);
  }
  const ownParams = parseJobParams(jobParams, parseOptionsOf(context));
  // An append's own top-level parameters only validate, but wholly, as a create's would (engine and flag rules included).
  if (appending && Object.keys(jobParams).length > 0) itemHoldMicro(ownParams, context);
  const rawItems = chooseItems(controls);
  const defaults = jobParamsForItems ?? jobParams;
  // The job's own parameters were just parsed; an append's items run with the stored ones instead.
  const bare = bareItems(defaults, context, jobParamsForItems === undefined ? ownParams : undefined);
  const items = rawItems.map((raw, index) => {
    try {
      return parseItem(raw, defaults, context, bare);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      throw new ServiceError(error.code, `Item ${index}: ${error.detail ?? error.code}`, { targetStatus: error.targetStatus });
    }
  });
  return { controls, jobParams, items };
}

function chooseItems(controls: RunControls): unknown[] {
  const urls = controls.urls ?? [];
  const items = controls.items ?? [];
  if (urls.length > 0 && items.length > 0) {
    throw new ServiceError('ERR::REQUEST::INCOMPATIBLE_FLAGS', 'send either urls or items, not both');
  }
  if (urls.length === 0 && items.length === 0) {
    throw new ServiceError('ERR::REQUEST::MISSING_PARAMETER', 'urls or items: one non-empty list is required');
  }
  const chosen = urls.length > 0 ? urls.map((url) => ({ url })) : items;
  if (chosen.length > MAX_ITEMS_PER_CALL) {
    throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `${urls.length > 0 ? 'urls' : 'items'}: at most ${MAX_ITEMS_PER_CALL} per call; ${BATCH_SPLIT_HINT}`);
  }
  return chosen;
}

/** Items without overrides share the job parameters' parse and price (gateway/batch/item-params.ts), made on first use. */
function bareItems(jobParams: Record<string, unknown>, context: SubmissionContext, parsed?: ScrapeParams): { params(): ScrapeParams; hold(): number } {
  let params = parsed;
  let hold: number | undefined;
  const shared = () => (params ??= parseJobParams(jobParams, parseOptionsOf(context)));
  return { params: shared, hold: () => (hold ??= itemHoldMicro(shared(), context)) };
}

function parseItem(raw: unknown, jobParams: Record<string, unknown>, context: SubmissionContext, bare: ReturnType<typeof bareItems>): ParsedItem {
  if (!isJsonObject(raw)) throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', 'must be an object with url');
  if (raw.url === undefined || raw.url === null) throw new ServiceError('ERR::REQUEST::MISSING_PARAMETER', 'url: required');
  const parsed = ItemSchema.safeParse(raw);
  if (!parsed.success) throw invalidParameter(parsed.error);
  const { url, external_id: externalId, ...overrides } = parsed.data;
  if ('session_id' in overrides) {
    throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', 'session_id: set it at the top level of the batch body (one session per job)');
  }
  const sized = externalId === null || externalId === undefined ? overrides : { ...overrides, external_id: externalId };
  if (Buffer.byteLength(JSON.stringify(sized)) > MAX_ITEM_OVERRIDES_BYTES) {
    throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `overrides and external_id: at most ${MAX_ITEM_OVERRIDES_BYTES} bytes serialised`);
  }
  const params = itemParams({ jobParams, overrides, url }, parseOptionsOf(context), bare.params);
  const holdMicro = Object.keys(overrides).length === 0 ? bare.hold() : itemHoldMicro(params, context);
  return { url, external_id: externalId ?? null, overrides, holdMicro };
}

function parseOptionsOf(context: SubmissionContext): ParseOptions {
  return { projectDefaults: context.projectDefaults, egressPolicy: context.egressPolicy };
}

/** Routes and prices one item's parameters as a scrape's admission does (scrape/plan-and-price.ts); returns its dearest cost. */
function itemHoldMicro(params: ScrapeParams, context: SubmissionContext): number {
  const session = params.session_id === null ? undefined : context.session;
  return planAndPrice(params, { deployment: context.deployment, session, climb: false }).holdMicro;
}

/**
 * Below 1 becomes 1; above 50 becomes 50 with a warning. A job bound to a session runs its items one
 * at a time through the session's single-writer lease: 1, with a warning when more was asked.
 */
export function effectiveConcurrency(requested: number | null | undefined, sessionId: string | null = null): { concurrency: number; warning: string | null } {
  if (sessionId !== null) {
    const warning = requested !== null && requested !== undefined && requested > 1 ? `concurrency ${requested} became 1: the job runs through session ${sessionId}` : null;
    return { concurrency: 1, warning };
  }
  const value = requested ?? DEFAULT_CONCURRENCY;
  if (value > MAX_CONCURRENCY) {
    return { concurrency: MAX_CONCURRENCY, warning: `concurrency ${value} was clamped to ${MAX_CONCURRENCY}` };
  }
  return { concurrency: Math.max(MIN_CONCURRENCY, value), warning: null };
}
