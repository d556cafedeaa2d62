import { getDomain } from 'tldts';
import type { Queryable } from '../db.js';
import type { DomainScore } from './record.js';

/** A session keeps evidence for at most this many domains (SPEC: least useful evicted, not refused). */
export const MAX_DOMAIN_SCORES = 64;
/** A domain is retired for the session once this much bad evidence outweighs the good (docs/proxy-pools.md, "Sessions"). */
const RETIRE_AFTER_BAD = 3;
const RETIRE_BELOW_SCORE = 0.25;

/**
 * Keeps at most 64 entries. Least useful go first: retired domains, then the stalest evidence, then
 * the thinnest evidence (fewest good + bad observations). Returns how many went.
 */
export function keepMostUseful(entries: Array<[string, DomainScore]>): { kept: Record<string, DomainScore>; evicted: number } {
  if (entries.length <= MAX_DOMAIN_SCORES) return { kept: Object.fromEntries(entries), evicted: 0 };
  const sorted = [...entries].sort(
    ([, a], [, b]) => Number(a.retired) - Number(b.retired) || b.last_updated - a.last_updated || b.good + b.bad - (a.good + a.bad),
  );
  return { kept: Object.fromEntries(sorted.slice(0, MAX_DOMAIN_SCORES)), evicted: entries.length - MAX_DOMAIN_SCORES };
}

/** The lowercase registrable domain of a URL's host (eTLD+1), or the host itself (an IP address). */
export function registrableDomainOf(url: string): string | null {
  try {
    const host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
    return getDomain(host, { allowPrivateDomains: false }) ?? host;
  } catch {
    return null;
  }
}

/**
 * One scrape's evidence: good (the page came back usable) or bad (a challenge or a block). The score is
 * the smoothed share of good evidence, (good + 1) / (good + bad + 2), in [0, 1].
 */
export function withEvidence(scores: Record<string, DomainScore>, domain: string, good: boolean, nowSeconds: number): Record<string, DomainScore> {
  const previous = scores[domain] ?? { score: 0.5, good: 0, bad: 0, last_updated: nowSeconds, retired: false };
  const counts = { good: previous.good + (good ? 1 : 0), bad: previous.bad + (good ? 0 : 1) };
  const score = Math.round(((counts.good + 1) / (counts.good + counts.bad + 2)) * 1000) / 1000;
  const entry: DomainScore = { ...counts, score, last_updated: nowSeconds, retired: counts.bad >= RETIRE_AFTER_BAD && score < RETIRE_BELOW_SCORE };
  const rest = Object.entries(scores).filter(([name]) => name !== domain);
  // The fresh entry is never the one evicted: it is the newest evidence.
  return { ...keepMostUseful(rest.slice(-(MAX_DOMAIN_SCORES - 1))).kept, [domain]: entry };
}

/** Writes a session's domain scores while this scrape holds its lease. */
export async function saveDomainScores(db: Queryable, sessionId: string, holder: string, scores: Record<string, DomainScore>): Promise<void> {
  await db.query(`UPDATE sessions SET domain_scores = $3::jsonb WHERE id = $1 AND lease_holder = $2`, [sessionId, holder, JSON.stringify(scores)]);
}
