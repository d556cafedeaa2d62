import { parse as parseJsonSyntax, type ValueNode } from '@humanwhocodes/momoa';
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
const COLON = 0x3a;

interface TextScan {
  /** Nests deeper than the bound asked for (the scan then stops). */
  tooDeep: boolean;
  /** Object members written in the text: in JSON a colon outside strings separates exactly one name from its value. */
  members: number;
}

/** One pass over JSON text, before anything recurses: its nesting against `max`, and its object members. */
function scanJsonText(text: string, max: number): TextScan {
  let depth = 0;
  let members = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === COLON) {
      members += 1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > max) return { tooDeep: true, members };
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return { tooDeep: false, members };
}

/** True when the JSON text nests deeper than `max`. */
export function nestsDeeperThan(text: string, max: number): boolean {
  return scanJsonText(text, max).tooDeep;
}

type Refusal = { path: PropertyKey[]; problem: string };

/**
 * The first thing in decoded JSON the service refuses: a prototype key or text the store cannot hold.
 * Recursive, so only for values whose text passed `nestsDeeperThan` (deeper ones are refused here too).
 */
export function findRefusedInput(value: unknown): Refusal | null {
  return walk(value, [], { keys: 0 });
}

/** `path` is shared and mutated; it is copied only into a refusal. `seen.keys` counts the object keys walked. */
function walk(value: unknown, path: PropertyKey[], seen: { keys: number }): Refusal | null {
  if (typeof value === 'string') {
    const reason = unstorableReason(value);
    return reason ? { path: [...path], problem: reason } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (path.length >= MAX_JSON_DEPTH) return { path: [...path], problem: `nests deeper than ${MAX_JSON_DEPTH} levels` };
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      path.push(index);
      const found = walk(value[index], path, seen);
      path.pop();
      if (found) return found;
    }
    return null;
  }
  const keys = Object.keys(value);
  seen.keys += keys.length;
  for (const key of keys) {
    if (PROTOTYPE_KEYS.has(key)) return { path: [...path, key], problem: `"${key}" is not accepted as a key (it names an object's prototype)` };
    const reason = unstorableReason(key);
    if (reason) return { path: [...path, key], problem: `key ${reason}` };
    path.push(key);
    const found = walk((value as Record<string, unknown>)[key], path, seen);
    path.pop();
    if (found) return found;
  }
  return null;
}

/** The refusal for `findRefusedInput`'s finding, naming the field (prefixed by where the JSON came from). */
export function refusedInputError(found: Refusal, prefix: PropertyKey[] = []): ServiceError {
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
  const scan = scanJsonText(text, MAX_JSON_DEPTH);
  if (scan.tooDeep) {
    throw new ServiceError(code, `${what} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ServiceError(code, parameter === undefined ? 'Request body is not valid JSON' : `${parameter}: must be URL-encoded JSON`);
  }
  const seen = { keys: 0 };
  const found = walk(value, [], seen);
  const prefix = parameter === undefined ? [] : [parameter];
  if (found) throw refusedInputError(found, prefix);
  // JSON.parse keeps the last of a repeated name: more members written than kept means one was dropped.
  if (scan.members > seen.keys) throw refusedInputError(repeatedMember(text), prefix);
  return value;
}

/** The first object member whose name the same object already had (the text is valid JSON and has one). */
function repeatedMember(text: string): Refusal {
  const queue: Array<{ node: ValueNode; path: PropertyKey[] }> = [{ node: parseJsonSyntax(text, { ranges: false }).body, path: [] }];
  for (let next = 0; next < queue.length; next += 1) {
    const { node, path } = queue[next];
    if (node.type === 'Array') node.elements.forEach((element, index) => queue.push({ node: element.value, path: [...path, index] }));
    if (node.type !== 'Object') continue;
    const names = new Set<string>();
    for (const member of node.members) {
      const name = member.name.type === 'String' ? member.name.value : member.name.name;
      if (names.has(name)) return { path: [...path, name], problem: 'appears twice in its object; send each field once' };
      names.add(name);
      queue.push({ node: member.value, path: [...path, name] });
    }
  }
  return { path: [], problem: 'repeats an object member' };
}
