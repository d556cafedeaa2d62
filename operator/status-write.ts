import { stableStringify } from './conditions.js';

/**
 * Whether the stored status already holds every field of the desired one. Fields the operator does
 * not write are ignored, so a status written once is never written again for the same state.
 */
export function statusUpToDate(current: unknown, desired: object): boolean {
  if (typeof current !== 'object' || current === null) return false;
  const stored = new Map(Object.entries(current));
  return Object.entries(desired).every(([key, value]) => stableStringify(stored.get(key)) === stableStringify(value));
}
