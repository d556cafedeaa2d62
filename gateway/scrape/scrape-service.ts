import { ServiceError, type Attempt } from '../../lib/errors/index.js';
import { SCRAPE_JOB_TYPE, type EngineName, type ScrapeJob, type ScrapeResult, type ScrapeSuccess, type SessionState } from '../../lib/protocol/index.js';
import { engineCostMicro, isBillableStatus, isCacheable, reservationMicro, checkMaxCost } from '../../lib/scrape/cost.js';
import { planEngines, withoutClimb, type EnginePlan } from '../../lib/scrape/engine-selection.js';
import { parameterWarnings } from '../../lib/scrape/params.js';
import type { ScrapeParams } from '../../lib/scrape/types.js';
import { reserveCredits, settleReservation, type Reservation } from '../../lib/store/credits.js';
import { creditAccountOf } from '../auth/credit-account.js';
import type { Principal } from '../auth/key-resolver.js';
import type { GatewayContext } from '../context.js';
import { readCache, writeCache } from './cache.js';
import { dispatchJob } from './dispatch.js';
import { deploymentFor } from './deployment.js';
import { checkInSession, checkOutSession, findScrapeSession, jobSessionState, LEASE_MARGIN_MS, returnSession, type SessionCheckout } from '../sessions/scrape-session.js';

export interface ScrapeRequest {
  requestId: string;
  principal: Principal;
  params: ScrapeParams;
  receivedAt: number;
}

/** What happened, whether it succeeded or not: enough for the response, billing and the request log. */
export interface ScrapeRecord {
  engine: EngineName | null;
  chargedMicro: number;
  warnings: string[];
  attempts: Attempt[];
  results: ScrapeResult[];
  plan: EnginePlan | null;
  admissionMs: number;
  dispatchMs: number;
  cacheState: 'hit' | 'miss' | 'bypass';
}

export interface ScrapeSucceeded extends ScrapeRecord {
  result: ScrapeSuccess;
}

export class ScrapeFailed extends Error {
  constructor(
    readonly error: ServiceError,
    readonly record: ScrapeRecord,
  ) {
    super(error.message);
  }
}

/**
 * One scrape end to end: plan, reserve the dearest cost, dispatch rung by rung, settle. Every
 * failure path settles the reservation at 0, so a failure never bills.
 */
export async function performScrape(context: GatewayContext, request: ScrapeRequest): Promise<ScrapeSucceeded> {
  const { params, principal } = request;
  const record: ScrapeRecord = {
    engine: null,
    chargedMicro: 0,
    warnings: parameterWarnings(params),
    attempts: [],
    results: [],
    plan: null,
    admissionMs: 0,
    dispatchMs: 0,
    cacheState: isCacheable(params) ? 'miss' : 'bypass',
  };
  let reservation: Reservation | null = null;
  let session: SessionCheckout | null = null;
  try {
    // session_id is checked before any work (404/410 at 0 credits); the session pins the engine.
    const pinned = params.session_id === null ? undefined : await findScrapeSession(context.db, params.session_id, principal.organization.id);
    let plan = planEngines(params, deploymentFor(context, principal), pinned);
    record.plan = plan;
    checkMaxCost(plan, params);
    if (record.cacheState === 'miss') {
      const hit = await readCache(context.db, principal.project.id, params);
      if (hit) {
        context.metrics.scrapes.inc({ engine: hit.engine, outcome: 'cache_hit' });
        return { ...record, engine: hit.engine, cacheState: 'hit', admissionMs: Date.now() - request.receivedAt, result: hit };
      }
    }
    if (pinned) session = await checkOutSession(context.db, pinned, request.requestId, context.config.SCRAPE_BUDGET_MS + LEASE_MARGIN_MS);
    ({ plan, reservation } = await reserve(context, request, plan));
    record.plan = plan;
    record.admissionMs = Date.now() - request.receivedAt;
    const dispatchStart = Date.now();
    const success = await runRungs(context, request, plan, record, session ? jobSessionState(session) : null);
    record.dispatchMs = Date.now() - dispatchStart;
    record.engine = success.engine;
    record.warnings.push(...success.warnings);
    // A non-billable target status is a failed scrape (billing rule 1): the session is only handed back.
    if (session && isBillableStatus(success.target_status, params)) {
      record.warnings.push(...(await checkInSession(context.db, session, success)));
    }
    record.chargedMicro = chargeFor(success, params);
    await settleReservation(context.db, reservation.id, record.chargedMicro, success.engine);
    if (record.cacheState === 'miss') await writeCache(context.db, principal.project.id, params, success);
    context.metrics.scrapes.inc({ engine: success.engine, outcome: 'success' });
    context.metrics.creditsCharged.inc({ engine: success.engine }, record.chargedMicro);
    return { ...record, result: success };
  } catch (error) {
    if (reservation) await settleReservation(context.db, reservation.id, 0);
    const serviceError = error instanceof ServiceError ? error : new ServiceError('ERR::INTERNAL::ERROR', 'Scrape failed', { cause: error });
    context.metrics.scrapes.inc({ engine: record.engine ?? 'none', outcome: serviceError.code });
    throw new ScrapeFailed(withAttempts(serviceError, record), record);
  } finally {
    if (session) await returnSession(context.db, session);
  }
}

async function runRungs(
  context: GatewayContext,
  request: ScrapeRequest,
  plan: EnginePlan,
  record: ScrapeRecord,
  session: SessionState | null,
): Promise<ScrapeSuccess> {
  for (const [index, engine] of plan.rungs.entries()) {
    const result = await dispatchJob(context.bus, context.directory, jobFor(context, request, engine, session));
    record.results.push(result);
    record.engine = engine;
    record.attempts.push(...result.attempts.map((a) => ({ ...a, n: record.attempts.length + a.n })));
    const isLast = index === plan.rungs.length - 1;
    if (isLast || isUsable(result, request.params)) {
      if (result.ok) return result;
      throw ServiceError.fromWire(result.error);
    }
    record.warnings.push('ESCALATED');
  }
  throw new ServiceError('ERR::ENGINE::UNAVAILABLE', 'No engine could serve this request');
}

/**
 * mode=auto moves to the next rung unless this one returned a usable page: a success with a billable
 * status that is neither a challenge nor an empty JavaScript shell (docs/mode-auto.md).
 */
function isUsable(result: ScrapeResult, params: ScrapeParams): boolean {
  return result.ok && isBillableStatus(result.target_status, params) && !result.needs_javascript;
}

/**
 * Holds the dearest cost. Bot-challenge rule 6: when the allowance covers the first rung but not the
 * camoufox climb, the climb is dropped instead of refusing the request.
 */
async function reserve(context: GatewayContext, request: ScrapeRequest, plan: EnginePlan) {
  const { params, requestId } = request;
  const account = creditAccountOf(request.principal);
  try {
    return { plan, reservation: await reserveCredits(context.db, account, reservationMicro(plan, params), requestId) };
  } catch (error) {
    if (!plan.climbToCamoufox || !(error instanceof ServiceError) || error.code !== 'ERR::LIMIT::QUOTA_EXCEEDED') throw error;
    const grounded = withoutClimb(plan);
    return { plan: grounded, reservation: await reserveCredits(context.db, account, reservationMicro(grounded, params), requestId) };
  }
}

function jobFor(context: GatewayContext, request: ScrapeRequest, engine: EngineName, session: SessionState | null): ScrapeJob {
  const now = Date.now();
  const budget = Math.max(1000, context.config.SCRAPE_BUDGET_MS - (now - request.receivedAt));
  return {
    type: SCRAPE_JOB_TYPE,
    request_id: request.requestId,
    project_id: request.principal.project.id,
    engine,
    params: request.params as unknown as Record<string, unknown>,
    deadline_at: now + budget,
    budget_ms: budget,
    dispatched_at: now,
    session,
  };
}

/** Billing rule 1 (docs/api-reference.md): only billable target statuses, and never an undelivered screenshot. */
function chargeFor(success: ScrapeSuccess, params: ScrapeParams): number {
  if (!isBillableStatus(success.target_status, params)) return 0;
  if (success.screenshot_delivered === false) return 0;
  return engineCostMicro(success.engine, params);
}

/** The problem body carries every attempt and every warning decided for the caller. */
function withAttempts(error: ServiceError, record: ScrapeRecord): ServiceError {
  const warnings = [...new Set([...(error.warnings ?? []), ...record.warnings])];
  return error.with({
    warnings: warnings.length > 0 ? warnings : undefined,
    diagnostics: record.attempts.length > 0 ? { ...error.diagnostics, attempts: record.attempts } : error.diagnostics,
  });
}
