import type { Blocked } from '../../lib/protocol/index.js';
import { BLOCKING_STATUSES, CHALLENGE_RULES, INTERSTITIAL_MAX_CHARS, type ChallengeInput, type ChallengeRule } from './rules.js';

export { CHALLENGE_RULES, type ChallengeRule } from './rules.js';

function contextHolds(rule: ChallengeRule, page: ChallengeInput): boolean {
  if (rule.context === 'any') return true;
  const refusal = BLOCKING_STATUSES.has(page.status);
  if (rule.context === 'blocking') return refusal;
  return refusal || page.body.length <= INTERSTITIAL_MAX_CHARS;
}

function markerHolds(rule: ChallengeRule, page: ChallengeInput): boolean {
  if (rule.header) {
    const value = page.headers[rule.header.name];
    if (value === undefined || !rule.header.value.test(value)) return false;
  }
  if (rule.body && !rule.body.test(page.body)) return false;
  return rule.header !== undefined || rule.body !== undefined;
}

/** The first vendor challenge rule the page matches, or null. A bare 403 matches nothing. */
export function detectChallenge(page: ChallengeInput): Blocked | null {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(page.headers)) headers[name.toLowerCase()] = value;
  const normalised = { ...page, headers };
  for (const rule of CHALLENGE_RULES) {
    if (contextHolds(rule, normalised) && markerHolds(rule, normalised)) {
      return { vendor: rule.vendor, signal: rule.signal, rule: rule.name };
    }
  }
  return null;
}
