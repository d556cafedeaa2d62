import { ServiceError } from '../../lib/errors/index.js';
import type { ChosenExit, ExitPool } from '../../lib/proxy-pool/exit-pool.js';
import { outcomeOf } from '../../lib/proxy-pool/outcome.js';
import type { ExitIntent } from '../../lib/proxy-pool/selection.js';
import type { JobExit, ScrapeResult } from '../../lib/protocol/index.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import type { SessionRecord } from '../../lib/store/sessions/index.js';
import type { GatewayMetrics } from '../metrics.js';

/** Methods a challenged fetch may be sent again for on another exit (bot-challenge rule 2). */
const RETRY_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a scrape asked of the managed pool, for the request log's `proxy` object. */
export interface ExitRequest {
  intent: ExitIntent;
  /** The project's sticky key, or null to rotate. */
  stickyKey: string | null;
}

/** One exit a dispatch went through, for the request log and the challenge retry. */
export interface ExitTried {
  key: string;
  provider: string | null;
  country: string | null;
  /** Why this exit: the request log's `proxy.reason`. */
  reason: 'rotation' | 'sticky' | 'challenge_retry' | 'exit_failover';
}

/**
 * The pool intent of a scrape, or null when it does not use the pool: the caller's own `proxy` wins,
 * and without a configured pool every request goes direct (premium_proxy and sticky_key were
 * refused at planning). A session's intent replaces the request's (docs/proxy-pools.md, "Sessions").
 */
export function exitRequestOf(pool: ExitPool | null, params: ScrapeParams, session: SessionRecord | null): ExitRequest | null {
  if (pool === null || params.proxy !== null) return null;
  if (session) {
    const premium = session.proxy.tier === 'residential';
    // A sticky key the session derived from its id pins the exit but does not demand the pool.
    const derived = session.sticky_key === session.id.toLowerCase();
    const stickyKey = session.sticky_key === '' ? null : session.sticky_key.toLowerCase();
    return {
      intent: {
        tier: premium ? 'residential' : 'datacenter',
        required: premium || !derived,
        country: session.proxy.country,
        region: session.proxy.region_pool,
      },
      stickyKey,
    };
  }
  const country = params.premium_proxy ? params.proxy_country?.toUpperCase() ?? null : null;
  return {
    intent: { tier: params.premium_proxy ? 'residential' : 'datacenter', required: params.premium_proxy || params.sticky_key !== null, country, region: null },
    stickyKey: params.sticky_key?.toLowerCase() ?? null,
  };
}

export function jobExitOf(chosen: ChosenExit): JobExit {
  const { candidate } = chosen;
  return { id: candidate.key, url: chosen.url, tier: candidate.exit.tier, country: candidate.country, provider: candidate.exit.provider };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

/** Chooses the exit for one dispatch (null: direct), never one of `tried`. */
export async function chooseExit(pool: ExitPool, request: ExitRequest, projectId: string, url: string, tried: readonly ExitTried[]): Promise<ChosenExit | null> {
  return pool.choose({
    intent: request.intent,
    domain: hostOf(url),
    projectId,
    stickyKey: request.stickyKey,
    exclude: new Set(tried.map((t) => t.key)),
  });
}

/** Records what the dispatch said of its exit in the shared health. */
export async function recordExitUse(pool: ExitPool, metrics: GatewayMetrics, exit: JobExit, url: string, result: ScrapeResult): Promise<void> {
  const errorCode = result.ok ? null : result.error.code;
  const outcome = outcomeOf({ ok: result.ok, target_status: result.ok ? result.target_status : undefined, blocked: result.blocked, errorCode });
  metrics.exitUses.inc({ tier: exit.tier, exit: exit.id, outcome });
  const detail = result.ok ? (outcome === 'ban' ? `target status ${result.target_status}` : null) : errorCode;
  await pool.record(exit.id, hostOf(url), outcome, detail);
}

/** Further exits a dispatch may move to after an exit failed before reaching the target. */
export const MAX_EXIT_FAILOVERS = 2;

/**
 * Whether to send the dispatch again through another exit:
 * - `failover`: the exit itself failed (down, 407, its provider's 429): the target never saw the
 *   request, so any method moves on, up to MAX_EXIT_FAILOVERS times;
 * - `challenge`: bot-challenge rule 2, a vendor challenge met through a pool exit is tried once more
 *   on another exit, free; GET, HEAD and OPTIONS only, never with a sticky key or a session.
 */
export function nextExitReason(
  result: ScrapeResult,
  params: ScrapeParams,
  request: ExitRequest,
  done: { failovers: number; challengeRetried: boolean },
): 'failover' | 'challenge' | null {
  if (result.ok) return null;
  const outcome = outcomeOf({ ok: false, blocked: result.blocked, errorCode: result.error.code });
  if ((outcome === 'dead' || outcome === 'auth') && done.failovers < MAX_EXIT_FAILOVERS) return 'failover';
  const challenge =
    !done.challengeRetried &&
    result.blocked !== null &&
    result.error.code === 'ERR::UPSTREAM::CHALLENGE' &&
    RETRY_METHODS.has(params.method) &&
    request.stickyKey === null &&
    params.session_id === null;
  return challenge ? 'challenge' : null;
}

/** No exit left: the first choice answers 503; a retry that finds no other exit keeps the result it has. */
export function isExhausted(error: unknown): boolean {
  return error instanceof ServiceError && error.code === 'ERR::PROXY::EXHAUSTED';
}
