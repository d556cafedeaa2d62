import { ServiceError, toServiceError } from '../../lib/errors/index.js';
import { ENGINE_NAMES, SCRAPE_JOB_TYPE, type EngineName, type ScrapeJob, type ScrapeResult, type ScrapeSuccess } from '../../lib/protocol/index.js';
import { MICRO_PER_CREDIT } from '../../lib/scrape/prices.js';
import { engineCostMicro, isBillableStatus } from '../../lib/scrape/cost.js';
import { planEngines, withoutClimb, type Deployment } from '../../lib/scrape/engine-selection.js';
import { parameterWarnings, parseScrapeBody, type ProjectDefaults } from '../../lib/scrape/params.js';
import type { ScrapeParams } from '../../lib/scrape/types.js';
import type { ClaimedItem } from '../../lib/store/batch/leases.js';
import { insertRequestLog } from '../../lib/store/request-log.js';
import type { GatewayContext } from '../context.js';
import { dispatchJob } from '../scrape/dispatch.js';
import { scrapeLogEntry } from '../scrape/log-entry.js';
import type { ScrapeRecord } from '../scrape/scrape-service.js';
import type { ItemOutcome } from './lifecycle.js';

/**
 * Runs one leased item like a scrape: parse the job defaults plus the item's overrides, route without
 * the camoufox climb (bot-challenge rule 7), dispatch rung by rung, and write a request log entry under
 * the item's request id. Never throws: every failure becomes an outcome.
 */
export async function runItem(context: GatewayContext, item: ClaimedItem): Promise<ItemOutcome> {
  const receivedAt = Date.now();
  const record: ScrapeRecord = {
    engine: null, chargedMicro: 0, warnings: [], attempts: [], results: [], plan: null, admissionMs: 0, dispatchMs: 0, cacheState: 'bypass',
  };
  let params: ScrapeParams | null = null;
  let success: ScrapeSuccess | null = null;
  let failure: ServiceError | null = null;
  try {
    params = parseScrapeBody({ ...item.job.params, ...item.overrides, url: item.url }, {
      projectDefaults: item.job.project_defaults as ProjectDefaults,
      egressPolicy: context.egressPolicy,
    });
    record.warnings.push(...parameterWarnings(params));
    const plan = withoutClimb(planEngines(params, await deploymentOf(context, item.job.organization_id)));
    record.plan = plan;
    record.admissionMs = Date.now() - receivedAt;
    success = await runRungs(context, item, params, plan.rungs, record);
    record.dispatchMs = Date.now() - receivedAt - record.admissionMs;
    record.engine = success.engine;
    record.chargedMicro = chargeFor(success, params);
  } catch (error) {
    failure = toServiceError(error);
  }
  const durationMs = Date.now() - receivedAt;
  const body = success && params ? responseBody(success, record, item.requestId) : null;
  const entry = scrapeLogEntry({
    requestId: item.requestId,
    receivedAt,
    projectId: item.job.project_id,
    params,
    rawUrl: item.url,
    record,
    success: success ? { ...record, result: success } : null,
    error: failure,
    bytesIn: 0,
    bytesOut: body?.bytes.length ?? 0,
    clientGone: false,
  });
  await insertRequestLog(context.db, entry, item.job.organization_id).catch((error: unknown) =>
    context.logger.error({ err: error, requestId: item.requestId }, 'batch item request log write failed'),
  );
  if (success && body) {
    return {
      kind: 'succeeded', httpStatus: success.target_status, chargedMicro: record.chargedMicro, engine: success.engine,
      bytes: body.bytes.length, durationMs, error: null, contentType: body.contentType, body: body.bytes,
    };
  }
  const error = failure ?? new ServiceError('ERR::INTERNAL::ERROR', 'batch item produced no result');
  const retry = error.retryable && item.attempts < item.job.max_attempts;
  return {
    kind: retry ? 'retry' : 'failed', httpStatus: error.targetStatus, chargedMicro: 0, engine: record.engine, bytes: 0, durationMs,
    error: { code: error.code, retryable: error.retryable, detail: error.detail ?? null }, contentType: null, body: null,
  };
}

async function deploymentOf(context: GatewayContext, organizationId: string): Promise<Deployment> {
  const result = await context.db.query<{ entitled_engines: string[] }>('SELECT entitled_engines FROM organizations WHERE id = $1', [organizationId]);
  const entitled = (result.rows[0]?.entitled_engines ?? []).filter((e): e is EngineName => (ENGINE_NAMES as readonly string[]).includes(e));
  return { deployed: context.directory.deployedEngines(), entitled: new Set(entitled), managedProxyPool: false, aiModel: false };
}

async function runRungs(context: GatewayContext, item: ClaimedItem, params: ScrapeParams, rungs: EngineName[], record: ScrapeRecord): Promise<ScrapeSuccess> {
  for (const [index, engine] of rungs.entries()) {
    const result = await dispatchJob(context.bus, context.directory, jobFor(context, item, params, engine));
    record.results.push(result);
    record.engine = engine;
    record.attempts.push(...result.attempts.map((a) => ({ ...a, n: record.attempts.length + a.n })));
    if (index === rungs.length - 1 || isUsable(result, params)) {
      if (result.ok) {
        record.warnings.push(...result.warnings);
        return result;
      }
      throw ServiceError.fromWire(result.error);
    }
    record.warnings.push('ESCALATED');
  }
  throw new ServiceError('ERR::ENGINE::UNAVAILABLE', 'No engine could serve this item');
}

/** mode=auto: the same usability rule as a scrape (docs/mode-auto.md). */
function isUsable(result: ScrapeResult, params: ScrapeParams): boolean {
  return result.ok && isBillableStatus(result.target_status, params) && !result.needs_javascript;
}

function jobFor(context: GatewayContext, item: ClaimedItem, params: ScrapeParams, engine: EngineName): ScrapeJob {
  const now = Date.now();
  const budget = context.config.SCRAPE_BUDGET_MS;
  return {
    type: SCRAPE_JOB_TYPE,
    request_id: item.requestId,
    project_id: item.job.project_id,
    engine,
    params: params as unknown as Record<string, unknown>,
    deadline_at: now + budget,
    budget_ms: budget,
    dispatched_at: now,
    session: null,
  };
}

function chargeFor(success: ScrapeSuccess, params: ScrapeParams): number {
  if (!isBillableStatus(success.target_status, params)) return 0;
  if (success.screenshot_delivered === false) return 0;
  return engineCostMicro(success.engine, params);
}

/** The body a scrape with these parameters would have answered: the document, or the completed envelope. */
function responseBody(success: ScrapeSuccess, record: ScrapeRecord, requestId: string): { contentType: string; bytes: Buffer } {
  if (success.envelope) {
    const own = Array.isArray(success.envelope.warnings) ? success.envelope.warnings.filter((w): w is string => typeof w === 'string') : [];
    const envelope = {
      ...success.envelope,
      request_id: requestId,
      engine: success.engine,
      credits_charged: record.chargedMicro / MICRO_PER_CREDIT,
      cache_state: 'bypass',
      warnings: [...new Set([...own, ...record.warnings])],
      diagnostics: { attempts: record.attempts },
    };
    return { contentType: 'application/json; charset=utf-8', bytes: Buffer.from(JSON.stringify(envelope), 'utf8') };
  }
  const bytes = success.body_encoding === 'base64' ? Buffer.from(success.body, 'base64') : Buffer.from(success.body, 'utf8');
  return { contentType: success.content_type, bytes };
}
