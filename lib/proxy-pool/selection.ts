import { ServiceError } from '../errors/index.js';
import type { ExitTier, PoolExit } from './pool-file.js';

/**
 * One selectable exit: a static exit, or one country of a provider gateway. Health is kept per
 * candidate (`key`), and per candidate and target domain.
 */
export interface ExitCandidate {
  key: string;
  exit: PoolExit;
  country: string | null;
}

export interface ExitHealth {
  successes: number;
  failures: number;
  bans: number;
  consecutive: number;
  /** Epoch ms; not selectable before. */
  cooldownUntil: number;
  /** The credential digest a proxy refused with 407: out of rotation while the credentials are these. */
  authFailedHash: string | null;
}

/** What a request asks of the pool (docs/proxy-pools.md, "Selection"). */
export interface ExitIntent {
  tier: ExitTier;
  /** A pool exit is required (premium_proxy, proxy_country or sticky_key): none gives 503, never direct. */
  required: boolean;
  country: string | null;
  region: string | null;
}

export function candidatesOf(exits: readonly PoolExit[]): ExitCandidate[] {
  return exits.flatMap((exit): ExitCandidate[] => {
    if (exit.kind === 'static') return [{ key: exit.id, exit, country: exit.countries[0] ?? null }];
    return exit.countries.map((country) => ({ key: `${exit.id}.${country.toLowerCase()}`, exit, country }));
  });
}

export const domainHealthKey = (key: string, domain: string): string => `${key} ${domain}`;

/** What selection reads: exit-level health, and the per-domain entries that are cooling down. */
export interface HealthView {
  exit(key: string): ExitHealth | undefined;
  domain(key: string, domain: string): ExitHealth | undefined;
}

export function isOutOfRotation(candidate: ExitCandidate, health: ExitHealth | undefined): boolean {
  return health?.authFailedHash != null && health.authFailedHash === candidate.exit.credentialHash;
}

function usable(candidate: ExitCandidate, view: HealthView, domain: string, now: number): boolean {
  const health = view.exit(candidate.key);
  if (isOutOfRotation(candidate, health)) return false;
  if ((health?.cooldownUntil ?? 0) > now) return false;
  return (view.domain(candidate.key, domain)?.cooldownUntil ?? 0) <= now;
}

function describe(intent: ExitIntent): string {
  const where = [intent.country ? `in ${intent.country}` : null, intent.region ? `in region pool ${intent.region}` : null].filter(Boolean);
  return [`${intent.tier} exit`, ...where].join(' ');
}

/**
 * The candidates that may serve the intent now, healthiest-weighted selection aside. Null means the
 * request goes direct (nothing required and the pool has no exit of the tier). Throws 503
 * ERR::PROXY::EXHAUSTED naming what is missing.
 */
export function eligibleCandidates(
  all: readonly ExitCandidate[],
  intent: ExitIntent,
  view: HealthView,
  domain: string,
  now: number,
  exclude: ReadonlySet<string> = new Set(),
): ExitCandidate[] | null {
  const ofTier = all.filter((c) => c.exit.tier === intent.tier);
  if (ofTier.length === 0) {
    if (!intent.required) return null;
    throw new ServiceError('ERR::PROXY::EXHAUSTED', `this deployment's proxy pool has no ${intent.tier} exit`);
  }
  const matching = ofTier.filter(
    (c) =>
      (intent.country === null || c.country === intent.country) &&
      (intent.region === null || (c.exit.region ?? '').toLowerCase() === intent.region.toLowerCase()),
  );
  if (matching.length === 0) throw new ServiceError('ERR::PROXY::EXHAUSTED', `no ${describe(intent)} is configured`);
  const open = matching.filter((c) => !exclude.has(c.key) && usable(c, view, domain, now));
  if (open.length === 0) {
    const why = exclude.size > 0 ? 'every other one was tried or is' : 'every one is';
    throw new ServiceError('ERR::PROXY::EXHAUSTED', `no ${describe(intent)} is available: ${why} cooling down or out of rotation`, {
      retryAfterSeconds: 30,
    });
  }
  return open;
}

/** Health factor of an exit in (0.1, 1]: the share of its uses that went well, smoothed. */
export function healthWeight(candidate: ExitCandidate, health: ExitHealth | undefined): number {
  const h = health ?? { successes: 0, failures: 0, bans: 0 };
  const factor = (h.successes + 1) / (h.successes + h.failures + h.bans + 1);
  return candidate.exit.weight * Math.max(0.1, factor);
}

/**
 * Smooth weighted round-robin (nginx's): over any run of picks each candidate gets its share of the
 * weights within one pick, without the clumps of a random draw. State per candidate key, bounded by
 * the configured candidates.
 */
export class SmoothRotation {
  private readonly current = new Map<string, number>();

  /** Forgets the state of candidates no longer configured. */
  keepOnly(keys: ReadonlyMap<string, unknown>): void {
    for (const key of this.current.keys()) if (!keys.has(key)) this.current.delete(key);
  }

  pick(candidates: readonly ExitCandidate[], weightOf: (c: ExitCandidate) => number): ExitCandidate {
    let total = 0;
    let best: ExitCandidate = candidates[0];
    let bestValue = -Infinity;
    for (const candidate of candidates) {
      const weight = weightOf(candidate);
      total += weight;
      const value = (this.current.get(candidate.key) ?? 0) + weight;
      this.current.set(candidate.key, value);
      if (value > bestValue) {
        bestValue = value;
        best = candidate;
      }
    }
    this.current.set(best.key, bestValue - total);
    return best;
  }
}
