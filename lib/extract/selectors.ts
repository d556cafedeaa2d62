import { select } from 'cheerio-select';
import { parse, type Selector } from 'css-what';

/**
 * Bounds on one CSS selector, so a hostile selector cannot make matching explode
 * (`:has(:has(:has(...)))` or hundreds of comma alternatives are O(nodes^depth)).
 */
export const SELECTOR_LIMITS = {
  maxLength: 512,
  /** Comma-separated alternatives in one selector. */
  maxAlternatives: 16,
  /** Simple selectors, combinators and pseudo-classes counted across the whole selector. */
  maxTokens: 64,
  /** Nesting of selector-taking pseudo-classes (`:not`, `:is`, `:has`, ...). */
  maxPseudoDepth: 2,
  /** Occurrences of `:has`, the one pseudo-class that scans descendants for every candidate. */
  maxHas: 2,
} as const;

interface SelectorCost {
  tokens: number;
  depth: number;
  has: number;
}

function measure(groups: Selector[][], depth: number, cost: SelectorCost): void {
  cost.depth = Math.max(cost.depth, depth);
  for (const group of groups) {
    for (const token of group) {
      cost.tokens += 1;
      if (token.type !== 'pseudo' || !Array.isArray(token.data)) continue;
      if (token.name === 'has') cost.has += 1;
      measure(token.data, depth + 1, cost);
    }
  }
}

/**
 * Returns the reason a selector is refused, or null when it is valid and within SELECTOR_LIMITS.
 * Validity is what cheerio accepts, including its jQuery extensions (`:contains`, `:first`, `:eq(n)`).
 */
export function selectorProblem(selector: string): string | null {
  if (selector.trim() === '') return 'selector is empty';
  if (selector.length > SELECTOR_LIMITS.maxLength) {
    return `selector is longer than ${SELECTOR_LIMITS.maxLength} characters`;
  }
  let groups: Selector[][];
  try {
    groups = parse(selector);
  } catch (error) {
    return `selector does not parse: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (groups.length > SELECTOR_LIMITS.maxAlternatives) {
    return `selector has more than ${SELECTOR_LIMITS.maxAlternatives} comma-separated alternatives`;
  }
  const cost: SelectorCost = { tokens: 0, depth: 0, has: 0 };
  measure(groups, 0, cost);
  if (cost.tokens > SELECTOR_LIMITS.maxTokens) return `selector has more than ${SELECTOR_LIMITS.maxTokens} parts`;
  if (cost.depth > SELECTOR_LIMITS.maxPseudoDepth) {
    return `selector nests pseudo-classes deeper than ${SELECTOR_LIMITS.maxPseudoDepth}`;
  }
  if (cost.has > SELECTOR_LIMITS.maxHas) return `selector uses :has more than ${SELECTOR_LIMITS.maxHas} times`;
  try {
    select(selector, []);
  } catch (error) {
    return `selector is not supported: ${error instanceof Error ? error.message : String(error)}`;
  }
  return null;
}
