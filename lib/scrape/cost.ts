import { ServiceError } from '../errors/index.js';
import { type EngineName } from '../protocol/engines.js';
import { AI_EXTRACT_CREDITS, ENGINE_PRICE_CREDITS, MICRO_PER_CREDIT } from './prices.js';
import type { EnginePlan, ScrapeParams } from './types.js';

/** Statuses billed on success (docs/api-reference.md "Billing rules" 1), before `allowed_status_codes`. */
export const BILLABLE_STATUSES: readonly number[] = [200, 404, 410];
/** Cache lifetime when `cache_ttl` is omitted (docs/parameters.md). */
export const DEFAULT_CACHE_TTL_SECONDS = 3600;

/** Residential pricing applies to a managed pool exit only; the caller's own proxy adds nothing. */
function usesResidentialExit(params: ScrapeParams): boolean {
  return params.premium_proxy && params.proxy === null;
}

/** What a success on `engine` costs, in micro-credits. */
export function engineCostMicro(engine: EngineName, params: ScrapeParams): number {
  const price = ENGINE_PRICE_CREDITS[engine];
  const credits = (usesResidentialExit(params) ? price.residential : price.datacenter) + (params.ai_extract !== null ? AI_EXTRACT_CREDITS : 0);
  return credits * MICRO_PER_CREDIT;
}

/** The dearest possible charge: the top rung, or camoufox when the challenge climb is possible. */
export function reservationMicro(plan: EnginePlan, params: ScrapeParams): number {
  const engines: EngineName[] = plan.climbToCamoufox ? [...plan.rungs, 'camoufox'] : plan.rungs;
  return Math.max(...engines.map((engine) => engineCostMicro(engine, params)));
}

/**
 * `max_cost` (whole credits) against the dearest possible charge of the plan, i.e. the reservation.
 * planEngines already turned the camoufox climb off when max_cost is below its price.
 */
export function checkMaxCost(plan: EnginePlan, params: ScrapeParams): void {
  if (params.max_cost === null) return;
  const dearest = reservationMicro(plan, params);
  if (dearest > params.max_cost * MICRO_PER_CREDIT) {
    const credits = dearest / MICRO_PER_CREDIT;
    throw new ServiceError(
      'ERR::LIMIT::MAX_COST_EXCEEDED',
      `this request can cost up to ${credits} credits (engine ${plan.rungs.at(-1)}), above max_cost ${params.max_cost}`,
    );
  }
}

export function isBillableStatus(status: number, params: ScrapeParams): boolean {
  return BILLABLE_STATUSES.includes(status) || params.allowed_status_codes.includes(status);
}

/** Whether a result may be read from or written to the cache (docs/parameters.md "cache"). */
export function isCacheable(params: ScrapeParams): boolean {
  return (
    params.method === 'GET' &&
    params.cache &&
    params.cache_ttl !== 0 &&
    params.session_id === null &&
    params.actions === null &&
    params.sticky_key === null
  );
}

export function effectiveCacheTtlSeconds(params: ScrapeParams): number {
  return params.cache_ttl ?? DEFAULT_CACHE_TTL_SECONDS;
}
