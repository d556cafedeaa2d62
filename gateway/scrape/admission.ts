import type { Request, Response } from 'express';
import { toServiceError, type ServiceError } from '../../lib/errors/index.js';
import { newId } from '../../lib/ids.js';
import { isCacheable } from '../../lib/scrape/cache-policy.js';
import { parseScrapeBody, parseScrapeQuery, type ProjectDefaults } from '../../lib/scrape/params.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import { periodStartDate } from '../../lib/store/allowance-period.js';
import type { Scope } from '../../lib/store/accounts.js';
import type { CreditAccount, Hold, HoldRequest } from '../../lib/store/credits.js';
import { creditAccountOf } from '../auth/credit-account.js';
import type { Principal } from '../auth/key-resolver.js';
import type { GatewayContext } from '../context.js';
import { admitPaid, giveBackPaid, type PaidAdmission } from '../admission/paid-admission.js';
import type { RateDecision, TokenAdmission } from '../limits/rate-limiter.js';
import { principalOf, requireScope } from '../middleware/auth.js';
import { readJsonBody } from '../middleware/json-body.js';
import { checkUrlInput } from '../middleware/url-input.js';
import { rejectQueryParameters } from '../query-parameters.js';
import { deploymentOf } from './deployment.js';
import { planAndPrice, type PricedScrape } from './plan-and-price.js';

/**
 * A scrape let in: what it asked for and what it took (the paid admission's slot and hold,
 * admission/paid-admission.ts), each taken once here and owned by the scrape from then on (its slot
 * released and its hold settled by the route, whatever happens); or its refusal once its input was
 * read (concurrency, parameters), which the scrape answers with its own request log entry, nothing left taken.
 */
export type ScrapeAdmission =
  | (PaidAdmission & { principal: Principal; params: ScrapeParams; priced: PricedScrape | null })
  | { principal: Principal; refusal: ServiceError };

type Parsed = { params: ScrapeParams; priced: PricedScrape | null } | { refusal: ServiceError };

/** What a request asks for, checked in the order a refusal is answered. */
interface Checked {
  /** Path, query, scope and body: a refusal here is answered before any slot is asked for. */
  input: unknown;
  refusal: ServiceError | null;
  /** The parameters (refused after the slot) and, for a request without a session, their plan, when read ahead. */
  parsed: Parsed | null;
}

/**
 * The one admission stage of GET and POST /v1/scrape (`scope`: their operation's, gateway/openapi/scrape.ts) (docs/architecture.md, "The path of a scrape"):
 * the key's rate token, the path, query, scope and body checks, the organization's concurrency slot,
 * the parameters, their plan and price, and the credit hold (the slot and hold by admitPaid, the step
 * every paid operation shares: admission/paid-admission.ts). Refusals are answered in that order,
 * whatever order the work was done in: on the shared limiter (PostgreSQL) the request is read and
 * priced first, so that one statement takes the token, the slot and the hold (docs/platform.md,
 * "Performance"); elsewhere each step runs in turn. Throws a refusal that comes before the slot.
 */
export async function admitScrape(context: GatewayContext, scope: Scope, req: Request, res: Response): Promise<ScrapeAdmission> {
  const principal = principalOf(res);
  const { key, organization } = principal;
  const { rateLimiter } = context;
  const account = creditAccountOf(context, principal);
  let checked: Checked | null = null;
  let taken: Pick<TokenAdmission, 'slot'> & { hold: Hold | null } = { slot: null, hold: null };
  let rate: RateDecision;
  if (rateLimiter.admit) {
    checked = await checkRequest(context, scope, req, res, principal, true);
    const admitted = await rateLimiter.admit(key.id, organization.rate_limit_per_second, organization.id, organization.concurrency_limit, holdRequestOf(account, res, checked));
    rate = admitted.rate;
    taken = { slot: admitted.slot, hold: admitted.reservation ?? null };
  } else {
    rate = await rateLimiter.take(key.id, organization.rate_limit_per_second);
  }
  res.setHeader('X-RateLimit-Limit', String(rate.limit));
  res.setHeader('X-RateLimit-Remaining', String(rate.remaining));
  checked ??= await checkRequest(context, scope, req, res, principal, false);
  const paid = { organization, account, requestId: res.locals.requestId, taken, holdMicro: null };
  if (checked.refusal) {
    // Only what the shared statement took is wrapped (a slot and hold already taken): nothing new is asked for.
    if (taken.slot !== null && taken.slot !== 'full') await giveBackPaid(context, await admitPaid(context, paid));
    throw checked.refusal;
  }
  let admission: PaidAdmission;
  try {
    admission = await admitPaid(context, paid);
  } catch (error) {
    return { principal, refusal: toServiceError(error) };
  }
  res.setHeader('Concurrency-Limit', String(admission.slot.limit));
  res.setHeader('Concurrency-Remaining', String(admission.slot.remaining));
  const parsed = checked.parsed ?? parseAndPlan(context, principal, req, checked.input);
  if ('refusal' in parsed) {
    await giveBackPaid(context, admission);
    return { principal, refusal: parsed.refusal };
  }
  return { principal, ...admission, ...parsed };
}

/** Reads and checks the request; `ahead`: also parses and plans it (before the token, on the shared limiter). */
async function checkRequest(context: GatewayContext, scope: Scope, req: Request, res: Response, principal: Principal, ahead: boolean): Promise<Checked> {
  let input: unknown;
  try {
    checkUrlInput(req);
    requireScope(principal, scope);
    if (req.method === 'POST') {
      rejectQueryParameters(req);
      input = await readJsonBody(req, res, { required: true });
      res.locals.body = input;
    } else {
      input = req.query;
    }
  } catch (error) {
    return { input: undefined, refusal: toServiceError(error), parsed: null };
  }
  return { input, refusal: null, parsed: ahead ? parseAndPlan(context, principal, req, input) : null };
}

function parseAndPlan(context: GatewayContext, principal: Principal, req: Request, input: unknown): Parsed {
  const options = { projectDefaults: principal.project.defaults as ProjectDefaults, egressPolicy: context.egressPolicy };
  let params: ScrapeParams;
  try {
    params = req.method === 'POST' ? parseScrapeBody(input, options) : parseScrapeQuery(input as Record<string, unknown>, options);
  } catch (error) {
    return { refusal: toServiceError(error) };
  }
  return { params, priced: pricedWithoutSession(context, principal, params) };
}

/**
 * The plan and price of a request without a session (a session is looked up first, and pins the
 * engine: the scrape plans it then), when it passes max_cost; null when planning refuses it, which the
 * scrape then answers with its record.
 */
function pricedWithoutSession(context: GatewayContext, principal: Principal, params: ScrapeParams): PricedScrape | null {
  if (params.session_id !== null) return null;
  try {
    return planAndPrice(params, { deployment: deploymentOf(context, principal.organization.entitled_engines), climb: true });
  } catch {
    return null;
  }
}

/**
 * The hold the admission statement takes with the token and slot: only for a priced request that is
 * not cacheable (a cache hit holds nothing). Otherwise the scrape holds by a statement of its own.
 */
function holdRequestOf(account: CreditAccount, res: Response, checked: Checked): HoldRequest | null {
  const request = checked.parsed;
  if (!request || 'refusal' in request || request.priced === null || isCacheable(request.params)) return null;
  return {
    id: newId(),
    projectId: account.projectId,
    periodStart: periodStartDate(account.organizationCreatedAt, Date.now()),
    environment: account.environment,
    amountMicro: request.priced.holdMicro,
    allowanceMicro: account.monthlyCreditsMicro,
    requestId: res.locals.requestId,
  };
}
