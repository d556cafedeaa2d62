import { isPlainObject, RuleReader } from './reader.js';
import { readCast, readOutput, readSelector, rejectUnknownKeys } from './rule-parts.js';
import type { ExtractRule, FieldRule } from './types.js';

/** JSON Schema keywords accepted and ignored: they describe or validate, they do not select. */
const ANNOTATIONS = [
  '$schema', '$id', '$comment', 'title', 'description', 'required', 'default', 'examples', 'format', 'enum',
  'minimum', 'maximum', 'pattern', 'minLength', 'maxLength', 'minItems', 'maxItems', 'additionalProperties',
  'nullable',
];
const ROOT_KEYS = new Set(['type', 'properties', ...ANNOTATIONS]);
const PROPERTY_KEYS = new Set(['type', 'selector', 'output', 'properties', 'items', ...ANNOTATIONS]);
const ITEM_KEYS = new Set(['type', 'output', 'properties', ...ANNOTATIONS]);

/** `{ "type": "object", "properties": { ... } }` at the top level marks the JSON Schema form. */
export function isSchemaForm(extract: Record<string, unknown>): boolean {
  return extract.type === 'object' && isPlainObject(extract.properties);
}

export function readSchemaRoot(schema: Record<string, unknown>, reader: RuleReader): FieldRule[] {
  rejectUnknownKeys(schema, ROOT_KEYS, '', reader);
  return readProperties(schema.properties, '', 0, reader);
}

function readProperties(properties: unknown, parentPath: string, depth: number, reader: RuleReader): FieldRule[] {
  if (!isPlainObject(properties) || Object.keys(properties).length === 0) {
    reader.fail(parentPath, '`properties` must be a non-empty object');
  }
  return Object.entries(properties).map(([name, schema]) => {
    const path = reader.fieldName(parentPath, name);
    reader.countRule(path, depth);
    return { name, rule: readProperty(schema, path, depth, reader) };
  });
}

/** `"type": ["string", "null"]` is common in generated schemas: the non-null member decides. */
function schemaType(schema: Record<string, unknown>, path: string, reader: RuleReader): string {
  const declared = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : [schema.type];
  if (declared.length > 1) reader.fail(path, '`type` may name one type (plus "null")');
  const type = declared[0];
  if (type === undefined) return isPlainObject(schema.properties) ? 'object' : schema.items ? 'array' : 'string';
  if (typeof type !== 'string') return reader.fail(path, '`type` must be a string');
  return type;
}

function readProperty(schema: unknown, path: string, depth: number, reader: RuleReader): ExtractRule {
  if (!isPlainObject(schema)) reader.fail(path, 'each property must be a schema object');
  rejectUnknownKeys(schema, PROPERTY_KEYS, path, reader);
  const type = schemaType(schema, path, reader);
  if (type === 'object') {
    if (schema.output !== undefined) reader.fail(path, '`output` applies to values, not to objects');
    const selector = schema.selector === undefined ? null : readSelector(schema.selector, path, reader);
    return { kind: 'object', selector, list: false, fields: readProperties(schema.properties, path, depth + 1, reader) };
  }
  if (schema.selector === undefined) reader.fail(path, 'needs a `selector`');
  const selector = readSelector(schema.selector, path, reader);
  if (type !== 'array') {
    return { kind: 'value', selector, output: readOutput(schema.output, path, reader), list: false, cast: readCast(type, path, reader) };
  }
  return readArray(schema, selector, path, depth, reader);
}

function readArray(
  schema: Record<string, unknown>,
  selector: string,
  path: string,
  depth: number,
  reader: RuleReader,
): ExtractRule {
  const items = schema.items ?? { type: 'string' };
  const itemsPath = `${path}.items`;
  if (!isPlainObject(items)) return reader.fail(itemsPath, '`items` must be a schema object');
  rejectUnknownKeys(items, ITEM_KEYS, itemsPath, reader);
  const itemType = schemaType(items, itemsPath, reader);
  if (itemType === 'object') {
    if (schema.output !== undefined) reader.fail(path, '`output` applies to values, not to objects');
    return { kind: 'object', selector, list: true, fields: readProperties(items.properties, path, depth + 1, reader) };
  }
  if (itemType === 'array') reader.fail(itemsPath, 'arrays of arrays are not supported');
  if (schema.output !== undefined && items.output !== undefined) reader.fail(path, 'give `output` once');
  return {
    kind: 'value',
    selector,
    output: readOutput(items.output ?? schema.output, path, reader),
    list: true,
    cast: readCast(itemType, itemsPath, reader),
  };
}
