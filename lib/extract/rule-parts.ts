import { RuleReader } from './reader.js';
import { selectorProblem } from './selectors.js';
import type { ValueCast, ValueOutput } from './types.js';

const CASTS: readonly ValueCast[] = ['string', 'number', 'integer', 'boolean'];
const ATTRIBUTE_NAME = /^[^\s"'>/=]+$/;

export function readSelector(value: unknown, path: string, reader: RuleReader): string {
  if (typeof value !== 'string') reader.fail(path, '`selector` must be a string (a CSS selector)');
  const problem = selectorProblem(value);
  if (problem) reader.fail(path, problem);
  return value.trim();
}

/** `text` (default), `html` (outer HTML), `inner_html`, or `@name` for an attribute. */
export function readOutput(value: unknown, path: string, reader: RuleReader): ValueOutput {
  if (value === undefined || value === 'text') return { kind: 'text' };
  if (value === 'html') return { kind: 'html' };
  if (value === 'inner_html') return { kind: 'inner_html' };
  if (typeof value === 'string' && value.startsWith('@') && ATTRIBUTE_NAME.test(value.slice(1))) {
    return { kind: 'attr', name: value.slice(1).toLowerCase() };
  }
  return reader.fail(path, '`output` must be "text", "html", "inner_html" or "@attribute"');
}

export function readCast(value: unknown, path: string, reader: RuleReader): ValueCast {
  if (value === undefined) return 'string';
  if (typeof value === 'string' && (CASTS as readonly string[]).includes(value)) return value as ValueCast;
  return reader.fail(path, `type must be one of ${CASTS.join(', ')}`);
}

export function rejectUnknownKeys(
  rule: Record<string, unknown>,
  allowed: ReadonlySet<string>,
  path: string,
  reader: RuleReader,
): void {
  for (const key of Object.keys(rule)) {
    if (!allowed.has(key)) reader.fail(path, `unknown key \`${key}\``);
  }
}
