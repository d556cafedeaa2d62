import type { Condition, ConditionType, Reason } from './condition-types.js';


export interface ConditionInput {
  type: ConditionType;
  status: boolean;
  reason: Reason;
  message: string;
}

/**
 * The conditions to store: one per input, in input order. lastTransitionTime is kept from the
 * previous condition of the same type when its status did not change, so an unchanged state
 * produces an identical status (and no write).
 */
export function nextConditions(previous: readonly Condition[], inputs: readonly ConditionInput[], generation: number, now: Date): Condition[] {
  return inputs.map((input) => {
    const status = input.status ? 'True' : 'False';
    const before = previous.find((c) => c.type === input.type);
    const lastTransitionTime = before && before.status === status ? before.lastTransitionTime : now.toISOString();
    return { type: input.type, status, reason: input.reason, message: input.message, lastTransitionTime, observedGeneration: generation };
  });
}

/** JSON with object keys sorted, so equal values always give equal strings (comparison and hashing). */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}
