import { checkMaxCost } from '../../lib/billing/cost.js';
import { planEngines, withoutClimb, type Deployment, type EnginePlan } from '../../lib/scrape/engine-selection.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import type { SessionRecord } from '../../lib/store/sessions/index.js';

/** A scrape's route and price, decided before anything is spent. */
export interface PricedScrape {
  plan: EnginePlan;
  /** The parameters as priced: a residential session's scrape is priced as a premium_proxy one. */
  params: ScrapeParams;
  /** The dearest possible charge of the plan (within max_cost): what is held. */
  holdMicro: number;
}

export interface PlanContext {
  /** What this deployment can serve for the organization (scrape/deployment.ts). */
  deployment: Deployment;
  /** The session the scrape runs in, looked up first: it pins the engine, and its exit tier sets the price column. */
  session?: Pick<SessionRecord, 'engine' | 'proxy'>;
  /** False for batch items, which never climb to camoufox (bot-challenge rule 7). */
  climb: boolean;
}

/**
 * The one place a scrape's parameters are planned (engines, capabilities, entitlement), checked
 * against max_cost and priced: POST/GET /v1/scrape's admission (scrape/admission.ts), a session's
 * scrape once its session is found (scrape-loop.ts), and every batch item at submission
 * (batch/submission.ts) and when it runs. Pure; throws the 400/402-class/403/503 refusals
 * docs/mode-auto.md gives, all before anything is spent.
 */
export function planAndPrice(params: ScrapeParams, context: PlanContext): PricedScrape {
  const { session } = context;
  const planned = planEngines(params, context.deployment, session);
  const plan = context.climb ? planned : withoutClimb(planned);
  // A residential session's scrapes are priced as premium_proxy ones (the residential column).
  const priced = session?.proxy.tier === 'residential' && params.proxy === null ? { ...params, premium_proxy: true, proxy_country: session.proxy.country } : params;
  return { plan, params: priced, holdMicro: checkMaxCost(plan, priced) };
}
