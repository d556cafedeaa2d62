import { ServiceError, type Attempt } from '../../lib/errors/index.js';
import { SCRAPE_JOB_TYPE, type EngineName, type JobExit, type ScrapeJob, type ScrapeResult, type ScrapeSuccess, type SessionState } from '../../lib/protocol/index.js';
import { engineCostMicro, isBillableStatus } from '../../lib/billing/cost.js';
import type { EnginePlan } from '../../lib/scrape/engine-selection.js';
import { parameterWarnings } from '../../lib/scrape/params.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import type { SessionRecord } from '../../lib/store/sessions/index.js';
import type { GatewayContext } from '../context.js';
import { dispatchJob } from './dispatch.js';
import { chooseExit, exitRequestOf, isExhausted, jobExitOf, nextExitReason, recordExitUse, type ExitRequest, type ExitTried } from './exit-route.js';
import { extractWithModel, withoutModelInput, type ModelUse } from './model-step.js';
import { deploymentOf } from './deployment.js';
import { planAndPrice, type PricedScrape } from './plan-and-price.js';
import { checkInSession, checkOutSession, findScrapeSession, jobSessionState, LEASE_MARGIN_MS, noteDomainEvidence, returnSession, type SessionCheckout } from '../sessions/scrape-session.js';

/** Target statuses that are a site's refusal: bad evidence for a session's domain score. */
const BLOCK_STATUSES = new Set([403, 429]);

/**
 * The one scrape loop, used by POST/GET /v1/scrape (scrape-service.ts) and by batch items
 * (batch/run-item.ts): plan, lease the session, dispatch rung by rung under mode=auto, decide the
 * charge. Holding and settling credits stays with the caller: a scrape holds per request (plan-hold.ts, admission/credit-hold.ts), a batch
 * item spends the hold taken at submission.
 */

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
  /** What the scrape asked of the managed pool; null when it did not use it. */
  exitRequest: ExitRequest | null;
  /** Every pool exit a dispatch went through, in order. */
  exitsTried: ExitTried[];
  /** The ai_extract model step, once it started (scrape/model-step.ts). */
  model: ModelUse | null;
}

export function newRecord(cacheState: ScrapeRecord['cacheState']): ScrapeRecord {
  return { engine: null, chargedMicro: 0, warnings: [], attempts: [], results: [], plan: null, admissionMs: 0, dispatchMs: 0, cacheState, exitRequest: null, exitsTried: [], model: null };
}

export interface LoopRequest {
  requestId: string;
  projectId: string;
  organizationId: string;
  /** The organization's plan: engines it may use. */
  entitledEngines: readonly string[];
  params: ScrapeParams;
  receivedAt: number;
  /** Batch items never climb to camoufox (bot-challenge rule 7). */
  climb: boolean;
}

/** The route a request would take and its price, before anything is spent: session found (404/410), plan, max_cost. */
export interface PlannedScrape {
  /** The request with its parameters as priced (plan-and-price.ts). */
  request: LoopRequest;
  priced: PricedScrape;
  session: SessionRecord | null;
}

/** `admitted`: the plan and price made at admission for a request without a session (scrape/admission.ts), used as they are. */
export async function planScrape(context: GatewayContext, request: LoopRequest, record: ScrapeRecord, admitted: PricedScrape | null = null): Promise<PlannedScrape> {
  const { params } = request;
  record.warnings.push(...parameterWarnings(params));
  if (admitted && params.session_id === null) {
    record.plan = admitted.plan;
    record.exitRequest = exitRequestOf(context.exitPool, params, null);
    return { request, priced: admitted, session: null };
  }
  // session_id is checked before any work (404/410 at 0 credits); the session pins the engine.
  const session = params.session_id === null ? null : await findScrapeSession(context.db, params.session_id, request.organizationId);
  const priced = planAndPrice(params, { deployment: deploymentOf(context, request.entitledEngines), session: session ?? undefined, climb: request.climb });
  record.plan = priced.plan;
  record.exitRequest = exitRequestOf(context.exitPool, params, session);
  return { request: { ...request, params: priced.params }, priced, session };
}

/**
 * Leases the session (409 when busy), lets the caller admit the plan (a scrape reserves credits and
 * may drop the climb), then runs the rungs. A billable success saves the session's state; the lease is
 * handed back whatever happens. Sets record.chargedMicro to what the answer will say.
 */
export async function runScrape(
  context: GatewayContext,
  planned: PlannedScrape,
  record: ScrapeRecord,
  admit: (priced: PricedScrape) => Promise<EnginePlan> = async (priced) => priced.plan,
): Promise<ScrapeSuccess> {
  const { request } = planned;
  const leaseMs = context.config.SCRAPE_BUDGET_MS + LEASE_MARGIN_MS;
  let checkout: SessionCheckout | null = null;
  try {
    if (planned.session) checkout = await checkOutSession(context.db, planned.session, request.requestId, leaseMs);
    const plan = await admit(planned.priced);
    record.plan = plan;
    record.admissionMs = Date.now() - request.receivedAt;
    const dispatchStart = Date.now();
    let success: ScrapeSuccess;
    try {
      success = await runRungs(context, request, plan, record, checkout ? jobSessionState(checkout) : null);
    } catch (error) {
      if (checkout && error instanceof ServiceError && error.code === 'ERR::UPSTREAM::CHALLENGE') {
        await noteDomainEvidence(context.db, checkout, request.params.url, false);
      }
      throw error;
    }
    record.dispatchMs = Date.now() - dispatchStart;
    record.engine = success.engine;
    record.warnings.push(...success.warnings);
    if (checkout) {
      const blocked = BLOCK_STATUSES.has(success.target_status);
      if (blocked || isBillableStatus(success.target_status, request.params)) await noteDomainEvidence(context.db, checkout, request.params.url, !blocked);
    }
    // The model reads only a page that would be billed (docs/ai-extract.md); its failure fails the scrape at 0 credits.
    if (request.params.ai_extract !== null && isBillableStatus(success.target_status, request.params)) {
      const deadlineAt = request.receivedAt + context.config.SCRAPE_BUDGET_MS;
      const extracted = await extractWithModel(context, success, request.params, deadlineAt, (use) => (record.model = use));
      success = extracted.success;
      record.warnings.push(...extracted.warnings);
    }
    success = withoutModelInput(success);
    // A non-billable target status is a failed scrape (billing rule 1): the session is only handed back.
    if (checkout && isBillableStatus(success.target_status, request.params)) {
      record.warnings.push(...(await checkInSession(context.db, checkout, success)));
    }
    record.chargedMicro = chargeFor(success, request.params);
    return success;
  } finally {
    if (checkout) await returnSession(context.db, checkout);
  }
}

async function runRungs(context: GatewayContext, request: LoopRequest, plan: EnginePlan, record: ScrapeRecord, session: SessionState | null): Promise<ScrapeSuccess> {
  for (const [index, engine] of plan.rungs.entries()) {
    const result = await dispatchThroughExits(context, request, engine, record, session);
    record.engine = engine;
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
 * One rung's dispatch through the exit the pool chooses (or the caller's proxy, or direct), its use
 * recorded in the shared health. Sent again through another exit when the exit failed before the
 * target saw the request, or once after a vendor challenge (bot-challenge rule 2); only the answer
 * returned can be billed, so every retry is free.
 */
async function dispatchThroughExits(context: GatewayContext, request: LoopRequest, engine: EngineName, record: ScrapeRecord, session: SessionState | null): Promise<ScrapeResult> {
  const pool = context.exitPool;
  const exitRequest = record.exitRequest;
  const done = { failovers: 0, challengeRetried: false };
  let why: ExitTried['reason'] = exitRequest?.stickyKey ? 'sticky' : 'rotation';
  // Only this rung's exits are avoided: the next rung of mode=auto may use (and a sticky key keeps) the same.
  const triedHere: ExitTried[] = [];
  for (;;) {
    let exit: JobExit | null = null;
    if (pool && exitRequest) {
      let chosen;
      try {
        chosen = await chooseExit(pool, exitRequest, request.projectId, request.params.url, triedHere);
      } catch (error) {
        const last = record.results.at(-1);
        if (last && isExhausted(error) && (done.failovers > 0 || done.challengeRetried)) return last;
        if (isExhausted(error)) context.metrics.exitsExhausted.inc({ tier: exitRequest.intent.tier });
        throw error;
      }
      exit = chosen ? jobExitOf(chosen) : null;
      if (exit) {
        const tried = { key: exit.id, provider: exit.provider, country: exit.country, reason: why };
        triedHere.push(tried);
        record.exitsTried.push(tried);
      }
    }
    const result = await dispatchJob(context.bus, context.directory, { ...jobFor(context, request, engine, session), exit });
    record.results.push(result);
    record.attempts.push(...result.attempts.map((a) => ({ ...a, n: record.attempts.length + a.n })));
    if (!pool || !exit || !exitRequest) return result;
    await recordExitUse(pool, context.metrics, exit, request.params.url, result);
    const next = nextExitReason(result, request.params, exitRequest, done);
    if (next === null) return result;
    if (next === 'failover') done.failovers += 1;
    else done.challengeRetried = true;
    why = next === 'failover' ? 'exit_failover' : 'challenge_retry';
  }
}

function jobFor(context: GatewayContext, request: LoopRequest, engine: EngineName, session: SessionState | null): ScrapeJob {
  const now = Date.now();
  const budget = Math.max(1000, context.config.SCRAPE_BUDGET_MS - (now - request.receivedAt));
  return {
    type: SCRAPE_JOB_TYPE,
    request_id: request.requestId,
    project_id: request.projectId,
    engine,
    params: request.params,
    deadline_at: now + budget,
    budget_ms: budget,
    dispatched_at: now,
    session,
    exit: null,
  };
}

/** Billing rule 1: only billable target statuses, and never an undelivered screenshot. */
function chargeFor(success: ScrapeSuccess, params: ScrapeParams): number {
  if (!isBillableStatus(success.target_status, params)) return 0;
  if (success.screenshot_delivered === false) return 0;
  return engineCostMicro(success.engine, params);
}
