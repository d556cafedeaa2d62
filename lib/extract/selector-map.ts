import { isPlainObject, RuleReader } from './reader.js';
import { readCast, readOutput, readSelector, rejectUnknownKeys } from './rule-parts.js';
import type { ExtractRule, FieldRule } from './types.js';

const RULE_KEYS = new Set(['selector', 'output', 'type', 'cast']);

/**
 * Selector-map form: `{ field: "css" }` or `{ field: { selector, output, type, cast } }`, where
 * `type` is `item` (first match, default) or `list` (every match), and an `output` that is itself a
 * map makes a nested object (or list of objects) matched inside each selected element.
 */
export function readSelectorMap(
  map: Record<string, unknown>,
  parentPath: string,
  depth: number,
  reader: RuleReader,
): FieldRule[] {
  return Object.entries(map).map(([name, spec]) => {
    const path = reader.fieldName(parentPath, name);
    reader.countRule(path, depth);
    return { name, rule: readRule(spec, path, depth, reader) };
  });
}

function readRule(spec: unknown, path: string, depth: number, reader: RuleReader): ExtractRule {
  if (typeof spec === 'string') {
    return { kind: 'value', selector: readSelector(spec, path, reader), output: { kind: 'text' }, list: false, cast: 'string' };
  }
  if (!isPlainObject(spec)) reader.fail(path, 'a rule is a CSS selector string or an object with `selector`');
  rejectUnknownKeys(spec, RULE_KEYS, path, reader);
  const type = spec.type ?? 'item';
  if (type !== 'item' && type !== 'list') reader.fail(path, '`type` must be "item" or "list"');
  const list = type === 'list';
  if (isPlainObject(spec.output)) {
    if (spec.cast !== undefined) reader.fail(path, '`cast` applies to values, not to nested objects');
    if (Object.keys(spec.output).length === 0) reader.fail(path, 'nested `output` has no fields');
    const selector = spec.selector === undefined && !list ? null : readSelector(spec.selector, path, reader);
    return { kind: 'object', selector, list, fields: readSelectorMap(spec.output, path, depth + 1, reader) };
  }
  return {
    kind: 'value',
    selector: readSelector(spec.selector, path, reader),
    output: readOutput(spec.output, path, reader),
    list,
    cast: readCast(spec.cast, path, reader),
  };
}
