import { isPlainObject, RuleReader } from './reader.js';
import { isSchemaForm, readSchemaRoot } from './schema-form.js';
import { readSelectorMap } from './selector-map.js';
import type { ExtractRules } from './types.js';

export type { ExtractRule, ExtractRules, FieldRule, ObjectRule, ValueCast, ValueOutput, ValueRule } from './types.js';
export { EXTRACT_LIMITS } from './types.js';

/**
 * Validates `extract` (a selector map, or a JSON Schema whose properties carry `selector`) and
 * returns the normalised rule tree. Throws ERR::EXTRACT::INVALID_RULES naming the rule and the reason.
 * Pure: called by the gateway before anything is fetched, and again by the content pipeline.
 */
export function validateExtractRules(extract: unknown): ExtractRules {
  const reader: RuleReader = new RuleReader();
  if (!isPlainObject(extract)) reader.fail('', 'must be an object (a selector map or a JSON Schema)');
  if (Object.keys(extract).length === 0) reader.fail('', 'has no rules');
  if (isSchemaForm(extract)) return { form: 'json_schema', fields: readSchemaRoot(extract, reader) };
  return { form: 'selector_map', fields: readSelectorMap(extract, '', 0, reader) };
}
