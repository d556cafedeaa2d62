import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * JSON Schema for `ai_extract.schema`, checked by ajv (draft 2020-12; `definitions` of draft-07 works too).
 * One instance per process; compiled validators are kept by the schema's text, so a batch of items
 * sharing one schema compiles it once.
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
let shared: Ajv2020 | null = null;
/** Made on first use, so importing this module does nothing. */
const ajv = (): Ajv2020 => (shared ??= addFormats(new Ajv2020({ allErrors: true, strict: false, validateFormats: true, addUsedSchema: false })));
const compiled = new Map<string, ValidateFunction>();
const COMPILED_KEPT = 256;

/** Compiles the schema or says why it cannot be; never throws. */
export function compileSchema(schema: Record<string, unknown>): { validate: ValidateFunction } | { problem: string } {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return { validate: known };
  try {
    const validate = ajv().compile(schema);
    // ajv keeps every schema it compiled; callers' schemas come and go, so only `compiled` keeps them.
    ajv().removeSchema(schema);
    if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, validate);
    return { validate };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

/** The first few violations, as `/path: message`, for a problem's detail and the repair message. */
export function describeViolations(errors: ErrorObject[] | null | undefined, limit = 5): string {
  const lines = (errors ?? []).slice(0, limit).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
  const more = (errors?.length ?? 0) - lines.length;
  return more > 0 ? `${lines.join('; ')} (and ${more} more)` : lines.join('; ');
}

/** Keywords OpenAI's strict structured outputs accept; any other keyword sends the schema non-strict. */
const STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  '$schema', '$ref', '$defs', 'definitions', 'type', 'properties', 'required', 'additionalProperties', 'items',
  'enum', 'const', 'anyOf', 'description', 'title', 'pattern', 'format', 'minimum', 'maximum',
  'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems',
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether the schema meets strict structured outputs: every object closed (`additionalProperties:
 * false`) with every property required, and only supported keywords. Then `strict: true` is asked;
 * otherwise the schema goes as it is, non-strict, and ajv alone holds the answer to it.
 */
export function allowsStrict(schema: unknown): boolean {
  if (typeof schema === 'boolean') return false;
  if (!isObject(schema)) return false;
  for (const key of Object.keys(schema)) if (!STRICT_KEYWORDS.has(key)) return false;
  const properties = schema.properties;
  if (isObject(properties) || schema.type === 'object') {
    if (schema.additionalProperties !== false) return false;
    const names = isObject(properties) ? Object.keys(properties) : [];
    const required = Array.isArray(schema.required) ? schema.required : [];
    if (!names.every((name) => required.includes(name))) return false;
    if (isObject(properties) && !Object.values(properties).every(allowsStrict)) return false;
  }
  if (schema.items !== undefined && !allowsStrict(schema.items)) return false;
  if (Array.isArray(schema.anyOf) && !schema.anyOf.every(allowsStrict)) return false;
  for (const defs of [schema.$defs, schema.definitions]) {
    if (isObject(defs) && !Object.values(defs).every(allowsStrict)) return false;
  }
  return true;
}
