import type { Blocked } from '../../lib/protocol/index.js';
import { BLOCKING_STATUSES, CHALLENGE_RULES, INTERSTITIAL_MAX_CHARS, type ChallengeInput, type ChallengeRule } from './challenge-rules.js';

export { CHALLENGE_RULES, type ChallengeRule } from './challenge-rules.js';

function contextHolds(rule: ChallengeRule, page: ChallengeInput): boolean {
  if (rule.context === 'any') return true;
  const refusal = BLOCKING_STATUSES.has(page.status);
  if (rule.context === 'blocking') return refusal;
  return refusal || page.body.length <= INTERSTITIAL_MAX_CHARS;
}

/**
 * Body markers (flags none or `i`) joined into one case-insensitive pattern, a superset of each: a body
 * it does not match matches none of them, so an ordinary page is scanned once instead of once per rule.
 * Without a refusal status only the rules whose context can hold are joined.
 */
const PREFILTERED = new Set(CHALLENGE_RULES.filter((rule) => rule.body && /^i?$/.test(rule.body.flags)));

function joinedMarkers(rules: ChallengeRule[]): RegExp {
  return new RegExp(rules.map((rule) => `(?:${rule.body?.source})`).join('|'), 'i');
}

const MARKERS_ON_REFUSAL = joinedMarkers([...PREFILTERED]);
const MARKERS_OTHERWISE = joinedMarkers([...PREFILTERED].filter((rule) => rule.context !== 'blocking'));

function markerHolds(rule: ChallengeRule, page: ChallengeInput, bodyMayMatch: () => boolean): boolean {
  if (rule.header) {
    const value = page.headers[rule.header.name];
    if (value === undefined || !rule.header.value.test(value)) return false;
  }
  if (rule.body && !((!PREFILTERED.has(rule) || bodyMayMatch()) && rule.body.test(page.body))) return false;
  return rule.header !== undefined || rule.body !== undefined;
}

/** The first vendor challenge rule the page matches, or null. A bare 403 matches nothing. */
export function detectChallenge(page: ChallengeInput): Blocked | null {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(page.headers)) headers[name.toLowerCase()] = value;
  const normalised = { ...page, headers };
  let anyBodyMarker: boolean | undefined;
  const markers = BLOCKING_STATUSES.has(page.status) ? MARKERS_ON_REFUSAL : MARKERS_OTHERWISE;
  const bodyMayMatch = (): boolean => (anyBodyMarker ??= markers.test(page.body));
  for (const rule of CHALLENGE_RULES) {
    if (contextHolds(rule, normalised) && markerHolds(rule, normalised, bodyMayMatch)) {
      return { vendor: rule.vendor, signal: rule.signal, rule: rule.name };
    }
  }
  return null;
}
