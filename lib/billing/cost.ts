import { ServiceError } from '../errors/index.js';
import { type EngineName } from '../protocol/engines.js';
import { AI_EXTRACT_CREDITS, ENGINE_PRICE_CREDITS, MICRO_PER_CREDIT } from './prices.js';

/**
 * What a scrape costs, from its parameters and its plan. Billing reads only the parameters that set a
 * price, named here, so lib/scrape (which plans by price) depends on billing and never the reverse.
 */
export interface PricedParams {
  premium_proxy: boolean;
  proxy: unknown;
  ai_extract: unknown;
  max_cost: number | null;
  allowed_status_codes: readonly number[];
}

/** The engines a scrape may run on: its rungs, and camoufox when the challenge climb is possible. */
export interface PricedPlan {
  rungs: readonly EngineName[];
  climbToCamoufox: boolean;
}

/** Statuses billed on success (docs/api-reference.md "Billing rules" 1), before `allowed_status_codes`. */
export const BILLABLE_STATUSES: readonly number[] = [200, 404, 410];

/** Residential pricing applies to a managed pool exit only; the caller's own proxy adds nothing. */
function usesResidentialExit(params: PricedParams): boolean {
  return params.premium_proxy && params.proxy === null;
}

/** What a success on `engine` costs, in micro-credits: the engine's price for its exit class, plus priced add-ons. */
export function engineCostMicro(engine: EngineName, params: PricedParams): number {
  const price = ENGINE_PRICE_CREDITS[engine];
  const credits = (usesResidentialExit(params) ? price.residential : price.datacenter) + (params.ai_extract !== null ? AI_EXTRACT_CREDITS : 0);
  return credits * MICRO_PER_CREDIT;
}

/** The hold of a scrape: its dearest possible charge, the top rung or camoufox when the challenge climb is possible. */
export function holdMicro(plan: PricedPlan, params: PricedParams): number {
  const engines: EngineName[] = plan.climbToCamoufox ? [...plan.rungs, 'camoufox'] : [...plan.rungs];
  return Math.max(...engines.map((engine) => engineCostMicro(engine, params)));
}

/**
 * `max_cost` (whole credits) against the dearest possible charge of the plan; returns that charge, the
 * scrape's hold (`holdMicro`). planEngines already turned the camoufox climb off when max_cost is below its price.
 */
export function checkMaxCost(plan: PricedPlan, params: PricedParams): number {
  const dearest = holdMicro(plan, params);
  if (params.max_cost !== null && dearest > params.max_cost * MICRO_PER_CREDIT) {
    const credits = dearest / MICRO_PER_CREDIT;
    throw new ServiceError(
      'ERR::LIMIT::MAX_COST_EXCEEDED',
      `this request can cost up to ${credits} credits (engine ${plan.rungs.at(-1)}), above max_cost ${params.max_cost}`,
    );
  }
  return dearest;
}

export function isBillableStatus(status: number, params: Pick<PricedParams, 'allowed_status_codes'>): boolean {
  return BILLABLE_STATUSES.includes(status) || params.allowed_status_codes.includes(status);
}
