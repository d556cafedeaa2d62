import { holdMicro } from '../../lib/billing/cost.js';
import { ServiceError } from '../../lib/errors/index.js';
import { withoutClimb, type EnginePlan } from '../../lib/scrape/engine-selection.js';
import type { CreditHold } from '../admission/credit-hold.js';
import type { PricedScrape } from './plan-and-price.js';

/**
 * A scrape's hold before its first rung, when its admission did not take it: the plan's dearest
 * cost (priced once, plan-and-price.ts). Bot-challenge rule 6: when the allowance covers the first
 * rung but not the camoufox climb, the climb is dropped instead of refusing the request.
 */
export async function holdPlan(hold: CreditHold, priced: PricedScrape): Promise<EnginePlan> {
  const { plan, params } = priced;
  if (hold.held) return plan;
  try {
    await hold.take(priced.holdMicro);
    return plan;
  } catch (error) {
    if (!plan.climbToCamoufox || !(error instanceof ServiceError) || error.code !== 'ERR::LIMIT::QUOTA_EXCEEDED') throw error;
    const grounded = withoutClimb(plan);
    await hold.take(holdMicro(grounded, params));
    return grounded;
  }
}
