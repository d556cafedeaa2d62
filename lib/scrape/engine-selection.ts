import { actionsNeedScreenshot, type ActionStep } from './actions-schema.js';
import { ServiceError } from '../errors/index.js';
import { ENGINE_NAMES, type EngineName } from '../protocol/engines.js';
import { MICRO_PER_CREDIT } from '../billing/prices.js';
import { engineCostMicro } from '../billing/cost.js';
import { incompatible } from './issues.js';
import type { ScrapeParams } from './params-schema.js';

/** The engines a request may run on, in order (planned by `planEngines`). */
export interface EnginePlan {
  /** One rung unless mode=auto (['fetch', 'obscura'], or ['obscura'] when a browser-only flag is set). */
  rungs: EngineName[];
  /** Bot-challenge rules 3 and 6: a still-challenged page may climb to camoufox. */
  climbToCamoufox: boolean;
}

export interface Deployment {
  deployed: ReadonlySet<EngineName>;
  entitled: ReadonlySet<EngineName>;
  managedProxyPool: boolean;
  aiModel: boolean;
}


/** The engine a session is pinned to, when the request carries `session_id` (looked up by the gateway). */
export interface SessionPin {
  engine: EngineName;
}

const RASTERISERS: readonly EngineName[] = ['chromium', 'camoufox'];

function unsupported(detail: string): ServiceError {
  return new ServiceError('ERR::REQUEST::CAPABILITY_UNSUPPORTED', detail);
}

/** Browser-only parameters in use, by name (docs/parameters.md "Browser-only"). */
export function browserOnlyFlags(params: ScrapeParams): string[] {
  const flags: string[] = [];
  if (params.wait > 0) flags.push('wait');
  if (params.wait_for !== null) flags.push('wait_for');
  if (params.wait_for_timeout > 0) flags.push('wait_for_timeout');
  if (params.actions !== null) flags.push('actions');
  if (params.block_resources !== null && params.block_resources.length > 0) flags.push('block_resources');
  if (params.headless !== null) flags.push('headless');
  if (params.screenshot) flags.push('screenshot');
  if (params.network_capture !== null) flags.push('network_capture');
  return flags;
}

function needsRasteriser(params: ScrapeParams): boolean {
  return params.screenshot || (params.actions !== null && actionsNeedScreenshot(params.actions as ActionStep[]));
}

function candidateRungs(params: ScrapeParams, session: SessionPin | undefined): EngineName[] {
  if (session) {
    if (params.engine !== null && params.engine !== session.engine) {
      throw incompatible(`session_id is pinned to engine ${session.engine}; engine=${params.engine} differs`);
    }
    if (params.stealth && session.engine !== 'camoufox') {
      throw incompatible(`session_id is pinned to engine ${session.engine}; stealth=true needs camoufox`);
    }
    if (params.js_render && session.engine === 'fetch') {
      throw incompatible('session_id is pinned to engine fetch, which runs no JavaScript; js_render=true needs a browser session');
    }
    return [session.engine];
  }
  if (params.engine !== null) return [params.engine];
  if (params.stealth) return ['camoufox'];
  if (params.mode === 'auto') return browserOnlyFlags(params).length > 0 ? ['obscura'] : ['fetch', 'obscura'];
  return [params.js_render ? 'obscura' : 'fetch'];
}

function checkAutoCapabilities(params: ScrapeParams): void {
  if (needsRasteriser(params)) throw unsupported('mode=auto cannot take a screenshot; pin engine=chromium');
  if (params.response_format === 'pdf') throw unsupported('mode=auto cannot render a PDF; pin engine=chromium');
  if (params.headless === false) throw unsupported('mode=auto cannot run headful; pin engine=chromium');
}

function checkEngineCapabilities(engine: EngineName, params: ScrapeParams): void {
  if (params.response_format === 'pdf' && engine !== 'chromium') {
    throw unsupported(`response_format=pdf needs engine=chromium (engine ${engine} cannot render a PDF)`);
  }
  if (needsRasteriser(params) && !RASTERISERS.includes(engine)) {
    throw unsupported(`screenshots need engine=chromium or camoufox (engine ${engine} cannot take one)`);
  }
  if (params.headless === false && engine !== 'chromium') {
    throw unsupported(`headless=false needs engine=chromium (engine ${engine} runs headless only)`);
  }
  if (engine === 'fetch') {
    const flags = browserOnlyFlags(params);
    if (flags.length > 0) {
      throw incompatible(`${flags.join(', ')} need a browser engine: set js_render=true, stealth=true, mode=auto or an engine pin`);
    }
  }
}

function unavailability(engine: EngineName, deployment: Deployment): ServiceError | null {
  if (!deployment.deployed.has(engine)) {
    return new ServiceError('ERR::ENGINE::UNAVAILABLE', `engine ${engine} is not deployed`);
  }
  if (!deployment.entitled.has(engine)) {
    const included = ENGINE_NAMES.filter((name) => deployment.entitled.has(name));
    return new ServiceError(
      'ERR::AUTH::ENGINE_NOT_ENTITLED',
      `engine ${engine} is not in your plan; included engines: ${included.join(', ') || 'none'}`,
    );
  }
  return null;
}

function availableRungs(rungs: EngineName[], deployment: Deployment): EngineName[] {
  const usable = rungs.filter((engine) => unavailability(engine, deployment) === null);
  if (usable.length === 0) throw unavailability(rungs[0], deployment) ?? new ServiceError('ERR::ENGINE::UNAVAILABLE');
  return usable;
}

function checkDependencies(params: ScrapeParams, deployment: Deployment): void {
  if (!deployment.managedProxyPool) {
    if (params.premium_proxy && params.proxy === null) {
      throw new ServiceError('ERR::PROXY::EXHAUSTED', 'no managed residential exit is available; pass your own proxy');
    }
    if (params.sticky_key !== null) {
      throw new ServiceError('ERR::PROXY::EXHAUSTED', 'sticky_key needs a managed pool exit and none is available');
    }
  }
  if (params.ai_extract !== null && !deployment.aiModel) {
    throw new ServiceError('ERR::INTERNAL::UNAVAILABLE', 'ai_extract: no extraction model is configured');
  }
}

/** Bot-challenge rules 3 and 6, minus the allowance condition (see `withoutClimb`). */
function canClimb(params: ScrapeParams, deployment: Deployment, session: SessionPin | undefined): boolean {
  const exitAsked = params.premium_proxy || params.proxy !== null;
  const plainHttpProxy = params.proxy === null || new URL(params.proxy).protocol === 'http:';
  const affordable =
    params.max_cost === null || params.max_cost * MICRO_PER_CREDIT >= engineCostMicro('camoufox', params);
  return (
    exitAsked &&
    params.engine === null &&
    params.mode === null &&
    !params.stealth &&
    session === undefined &&
    params.method === 'GET' &&
    params.headless !== false &&
    params.response_format !== 'pdf' &&
    !params.screenshot &&
    params.actions === null &&
    plainHttpProxy &&
    affordable &&
    unavailability('camoufox', deployment) === null
  );
}

/**
 * Which engine serves these parameters (or the escalation ladder for mode=auto). Pure; throws the
 * 400/403/503 answers docs/mode-auto.md gives, all before anything is spent.
 */
export function planEngines(params: ScrapeParams, deployment: Deployment, session?: SessionPin): EnginePlan {
  const candidates = candidateRungs(params, session);
  if (params.mode === 'auto' && !session) checkAutoCapabilities(params);
  for (const engine of candidates) checkEngineCapabilities(engine, params);
  const rungs = availableRungs(candidates, deployment);
  checkDependencies(params, deployment);
  return { rungs, climbToCamoufox: canClimb(params, deployment, session) };
}

/** Rule 6: when the allowance covers the first rung but not camoufox, the climb is off. Batch items never climb. */
export function withoutClimb(plan: EnginePlan): EnginePlan {
  return { ...plan, climbToCamoufox: false };
}
