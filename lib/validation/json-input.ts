import { ServiceError } from '../errors/index.js';
import { fieldPath } from './field-path.js';
import { unstorableReason } from './storable.js';

/**
 * Deepest nesting of arrays and objects a decoded body may have. The deepest legitimate body (a batch
 * item's extraction rules with nested lists) is well under 20 levels; docs/parameters.md "JSON input".
 */
export const MAX_JSON_DEPTH = 64;

/** Keys that name or reach an object's prototype: refused by name, never silently dropped. */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** True when the JSON text nests deeper than `max`; one pass over the text, before anything recurses. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > max) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
}

/** The first thing in decoded JSON the service refuses: a prototype key or text the store cannot hold. */
export function findRefusedInput(value: unknown): { path: PropertyKey[]; problem: string } | null {
  const pending: Array<{ value: unknown; path: PropertyKey[] }> = [{ value, path: [] }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop() as { value: unknown; path: PropertyKey[] };
    if (typeof current === 'string') {
      const reason = unstorableReason(current);
      if (reason) return { path, problem: reason };
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) pending.push({ value: current[index], path: [...path, index] });
    } else if (current !== null && typeof current === 'object') {
      const keys = Object.keys(current);
      for (const key of keys) {
        if (PROTOTYPE_KEYS.has(key)) return { path: [...path, key], problem: `"${key}" is not accepted as a key (it names an object's prototype)` };
        const reason = unstorableReason(key);
        if (reason) return { path: [...path, key], problem: `key ${reason}` };
      }
      for (const key of keys.reverse()) pending.push({ value: (current as Record<string, unknown>)[key], path: [...path, key] });
    }
  }
  return null;
}

/** The refusal for `findRefusedInput`'s finding, naming the field (prefixed by where the JSON came from). */
export function refusedInputError(found: { path: PropertyKey[]; problem: string }, prefix: PropertyKey[] = []): ServiceError {
  const where = fieldPath([...prefix, ...found.path]);
  return new ServiceError('ERR::REQUEST::INVALID_PARAMETER', where === '' ? `request body ${found.problem}` : `${where}: ${found.problem}`);
}

/**
 * Decodes JSON a caller sent: a request body, or the JSON-encoded query parameter `parameter`.
 * Nesting is bounded before parsing, then prototype keys and unstorable text are refused by name.
 */
export function decodeJsonInput(text: string, parameter?: string): unknown {
  const code = parameter === undefined ? 'ERR::REQUEST::INVALID' : 'ERR::REQUEST::INVALID_PARAMETER';
  const what = parameter === undefined ? 'Request body' : `${parameter}:`;
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ServiceError(code, `${what} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ServiceError(code, parameter === undefined ? 'Request body is not valid JSON' : `${parameter}: must be URL-encoded JSON`);
  }
  const found = findRefusedInput(value);
  if (found) throw refusedInputError(found, parameter === undefined ? [] : [parameter]);
  return value;
}
