/** How a matched element becomes a value. */
export type ValueOutput =
  | { kind: 'text' }
  | { kind: 'html' }
  | { kind: 'inner_html' }
  | { kind: 'attr'; name: string };

/** The JSON type a value is coerced to (`string` leaves it as extracted). */
export type ValueCast = 'string' | 'number' | 'integer' | 'boolean';

/** One value (or, with `list`, every matching value). */
export interface ValueRule {
  kind: 'value';
  selector: string;
  output: ValueOutput;
  list: boolean;
  cast: ValueCast;
}

/**
 * A nested object whose fields are matched inside the element `selector` picks (inside the current
 * scope when null). With `list`, one object per matching element.
 */
export interface ObjectRule {
  kind: 'object';
  selector: string | null;
  list: boolean;
  fields: FieldRule[];
}

export type ExtractRule = ValueRule | ObjectRule;

export interface FieldRule {
  name: string;
  rule: ExtractRule;
}

/** The normalised rule tree both request forms compile to. */
export interface ExtractRules {
  form: 'selector_map' | 'json_schema';
  fields: FieldRule[];
}

export const EXTRACT_LIMITS = {
  /** Rules counted over the whole tree, nested ones included. */
  maxRules: 100,
  /** Nested objects inside objects. */
  maxDepth: 5,
  maxFieldNameLength: 128,
} as const;
