import { ServiceError, toServiceError } from '../../lib/errors/index.js';
import { countFinishedScrape } from '../metrics.js';
import type { ScrapeSuccess } from '../../lib/protocol/index.js';
import { isCacheable, reservationMicro } from '../../lib/scrape/cost.js';
import { withoutClimb, type EnginePlan } from '../../lib/scrape/engine-selection.js';
import type { ScrapeParams } from '../../lib/scrape/types.js';
import { reserveCredits, settleReservation, type Reservation } from '../../lib/store/credits.js';
import { creditAccountOf } from '../auth/credit-account.js';
import type { Principal } from '../auth/key-resolver.js';
import type { GatewayContext } from '../context.js';
import type { ConcurrencySlot } from '../limits/concurrency.js';
import { readCache, writeCache } from './cache.js';
import { newRecord, planScrape, runScrape, type ScrapeRecord } from './scrape-loop.js';

export type { ScrapeRecord } from './scrape-loop.js';

export interface ScrapeRequest {
  requestId: string;
  principal: Principal;
  params: ScrapeParams;
  receivedAt: number;
  /** The request's concurrency slot: a shared one is freed by the settlement's own statement. */
  slot: Pick<ConcurrencySlot, 'leaseHolder' | 'leaseFreed'> | null;
  /** The hold taken with the slot at admission (routes/scrape.ts), which this scrape then spends and settles. */
  heldEarly?: Reservation | null;
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
 * One scrape end to end: plan, read the cache, reserve the dearest cost, run the scrape loop, settle.
 * Settlement is the last step that can fail (the cache write before it never throws), so the answer
 * always says what was charged: every failure path settles the reservation at 0.
 */
export async function performScrape(context: GatewayContext, request: ScrapeRequest): Promise<ScrapeSucceeded> {
  const { params, principal } = request;
  const record = newRecord(isCacheable(params) ? 'miss' : 'bypass');
  // Set by the admission step inside the loop; settled exactly once below.
  const held: { reservation: Reservation | null } = { reservation: request.heldEarly ?? null };
  try {
    const planned = await planScrape(context, {
      requestId: request.requestId,
      projectId: principal.project.id,
      organizationId: principal.organization.id,
      entitledEngines: principal.organization.entitled_engines,
      params,
      receivedAt: request.receivedAt,
      climb: true,
    }, record);
    if (record.cacheState === 'miss') {
      const hit = await readCache(context.db, principal.project.id, params);
      if (hit) {
        // Never taken for a cacheable request (scrape/admission-hold.ts); were it, a hit spends nothing.
        if (held.reservation) await settleAndFree(context, request, held.reservation.id, 0, null);
        held.reservation = null;
        countFinishedScrape(context.metrics, hit.engine, 'cache_hit');
        // What the stored page's warnings say of it (RENDER_DEGRADED) holds for every answer it serves.
        record.warnings.push(...hit.warnings.filter((warning) => !record.warnings.includes(warning)));
        return { ...record, engine: hit.engine, cacheState: 'hit', admissionMs: Date.now() - request.receivedAt, result: hit };
      }
    }
    const success = await runScrape(context, planned, record, async (plan) => {
      if (held.reservation?.amountMicro === reservationMicro(plan, planned.request.params)) return plan;
      // Priced before admission for another plan (the deployment changed meanwhile): hold anew.
      if (held.reservation) await settleReservation(context.db, held.reservation.id, 0);
      held.reservation = null;
      const admitted = await reserve(context, request, planned.request.params, plan);
      held.reservation = admitted.reservation;
      return admitted.plan;
    });
    if (record.cacheState === 'miss') await cacheQuietly(context, principal.project.id, params, success);
    // The last step that can fail: after it nothing may turn this answer into an error.
    const reservation = held.reservation;
    if (!reservation) throw new ServiceError('ERR::INTERNAL::ERROR', 'scrape ran without a reservation');
    // Nothing to settle means the hold was lost with a database crash (lib/store/credits.ts): not charged.
    const settled = await settleAndFree(context, request, reservation.id, record.chargedMicro, success.engine);
    held.reservation = null;
    if (!settled) {
      throw new ServiceError('ERR::INTERNAL::ERROR', 'the credit hold of this scrape was lost; nothing was charged');
    }
    countFinishedScrape(context.metrics, success.engine, 'success', record.chargedMicro);
    return { ...record, result: success };
  } catch (error) {
    record.chargedMicro = 0;
    if (held.reservation) await settleAndFree(context, request, held.reservation.id, 0, null);
    const serviceError = toServiceError(error, 'Scrape failed');
    countFinishedScrape(context.metrics, record.engine ?? serviceError.diagnostics?.engine ?? 'none', serviceError.code);
    throw new ScrapeFailed(withAttempts(serviceError, record), record);
  }
}

async function settleAndFree(context: GatewayContext, request: ScrapeRequest, reservationId: string, chargedMicro: number, engine: string | null): Promise<boolean> {
  const leaseHolder = request.slot?.leaseHolder ?? null;
  const settled = await settleReservation(context.db, reservationId, chargedMicro, engine, leaseHolder);
  if (leaseHolder !== null) request.slot?.leaseFreed();
  return settled;
}

/** A cache write failure never fails the scrape that produced the page: logged and counted. */
async function cacheQuietly(context: GatewayContext, projectId: string, params: ScrapeParams, success: ScrapeSuccess): Promise<void> {
  try {
    await writeCache(context.db, projectId, params, success);
  } catch (error) {
    context.metrics.cacheWriteFailures.inc();
    context.logger.warn({ err: error }, 'scrape cache write failed; the scrape answers uncached');
  }
}

/**
 * Holds the dearest cost. Bot-challenge rule 6: when the allowance covers the first rung but not the
 * camoufox climb, the climb is dropped instead of refusing the request.
 */
async function reserve(context: GatewayContext, request: ScrapeRequest, params: ScrapeParams, plan: EnginePlan) {
  const { requestId } = request;
  const account = creditAccountOf(context, request.principal);
  try {
    return { plan, reservation: await reserveCredits(context.db, account, reservationMicro(plan, params), requestId) };
  } catch (error) {
    if (!plan.climbToCamoufox || !(error instanceof ServiceError) || error.code !== 'ERR::LIMIT::QUOTA_EXCEEDED') throw error;
    const grounded = withoutClimb(plan);
    return { plan: grounded, reservation: await reserveCredits(context.db, account, reservationMicro(grounded, params), requestId) };
  }
}

/** The problem body carries every attempt and every warning decided for the caller. */
function withAttempts(error: ServiceError, record: ScrapeRecord): ServiceError {
  const warnings = [...new Set([...(error.warnings ?? []), ...record.warnings])];
  return error.with({
    warnings: warnings.length > 0 ? warnings : undefined,
    diagnostics: record.attempts.length > 0 ? { ...error.diagnostics, attempts: record.attempts } : error.diagnostics,
  });
}
