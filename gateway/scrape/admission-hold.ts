import type { Request, Response } from 'express';
import { newId } from '../../lib/ids.js';
import { checkMaxCost, isCacheable, reservationMicro } from '../../lib/scrape/cost.js';
import { planEngines } from '../../lib/scrape/engine-selection.js';
import { parseScrapeBody, parseScrapeQuery, type ProjectDefaults } from '../../lib/scrape/params.js';
import type { ScrapeParams } from '../../lib/scrape/types.js';
import { periodStartDate } from '../../lib/store/allowance-period.js';
import type { AdmissionHold } from '../../lib/store/limits.js';
import { creditAccountOf } from '../auth/credit-account.js';
import type { GatewayContext } from '../context.js';
import { principalOf, requireScope } from '../middleware/auth.js';
import { readJsonBody } from '../middleware/json-body.js';
import { checkUrlInput } from '../middleware/url-input.js';
import { rejectQueryParameters } from '../query-parameters.js';
import { deploymentOf } from './deployment.js';

/** How /v1/scrape parses its parameters (routes/scrape.ts and the hold priced before admission). */
export function scrapeParseOptions(context: GatewayContext, projectDefaults: ProjectDefaults) {
  return { projectDefaults, egressPolicy: context.egressPolicy };
}

/**
 * The credit hold a scrape will take, priced before its admission so that the shared limiter takes it
 * in the admission statement with the token and the slot (one round trip fewer; docs/platform.md,
 * "Performance"). Null, and the scrape holds by a statement of its own as before, when any check the
 * request meets before its hold would refuse it (scope, path and query, body, parameters, plan,
 * max_cost: the route then answers that refusal in its usual order, with nothing held), for a session
 * (looked up first: 404/410) and for a cacheable request (a cache hit holds nothing). The body read
 * and the parameters are kept for the route (json-body.ts, routes/scrape.ts), not done twice.
 */
export async function admissionHoldFor(context: GatewayContext, req: Request, res: Response): Promise<AdmissionHold | null> {
  try {
    const principal = principalOf(res);
    requireScope(principal, 'scrape');
    checkUrlInput(req);
    res.locals.urlInputChecked = true;
    const options = scrapeParseOptions(context, principal.project.defaults as ProjectDefaults);
    let params: ScrapeParams;
    if (req.method === 'POST') {
      rejectQueryParameters(req);
      const bodyRead = readJsonBody(req, res, { required: true });
      res.locals.bodyRead = bodyRead;
      bodyRead.catch(() => undefined); // answered by json-body.ts, in the route's order
      params = parseScrapeBody(await bodyRead, options);
    } else {
      params = parseScrapeQuery(req.query as Record<string, unknown>, options);
    }
    res.locals.scrapeParams = params;
    if (params.session_id !== null || isCacheable(params)) return null;
    const plan = planEngines(params, deploymentOf(context, principal.organization.entitled_engines));
    checkMaxCost(plan, params);
    const account = creditAccountOf(context, principal);
    return {
      id: newId(),
      projectId: account.projectId,
      periodStart: periodStartDate(account.organizationCreatedAt, Date.now()),
      environment: account.environment,
      amountMicro: reservationMicro(plan, params),
      allowanceMicro: account.monthlyCreditsMicro,
      requestId: res.locals.requestId,
    };
  } catch {
    return null;
  }
}
