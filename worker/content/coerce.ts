import type { ValueCast } from '../../lib/extract/extract-rules.js';

/**
 * "1,299.50", "1.299,50", "$ 12", "-3", "0.125" -> numbers. With both `.` and `,` the last one is the
 * decimal mark; with one kind, a single mark not followed by exactly three digits (or after a leading 0) is.
 */
function parseNumber(raw: string): number | null {
  const match = raw.match(/-?\d[\d.,\s\u00a0']*/);
  if (!match) return null;
  const digits = match[0].replace(/[\s\u00a0']/g, '').replace(/[.,]+$/, '');
  const marks: string[] = digits.match(/[.,]/g) ?? [];
  const last = Math.max(digits.lastIndexOf('.'), digits.lastIndexOf(','));
  const mixed = marks.includes('.') && marks.includes(',');
  const single = marks.length === 1 && (digits.length - last - 1 !== 3 || /^-?0[.,]/.test(digits));
  const normalised =
    last >= 0 && (mixed || single)
      ? `${digits.slice(0, last).replace(/[.,]/g, '')}.${digits.slice(last + 1)}`
      : digits.replace(/[.,]/g, '');
  const value = Number(normalised);
  return Number.isFinite(value) ? value : null;
}

const FALSE_WORDS = new Set(['', 'false', 'no', '0', 'off', 'n', 'none', 'null', 'out of stock', 'unavailable']);

/** Coerces an extracted string; a value that cannot become the asked type becomes null. */
export function coerce(raw: string, cast: ValueCast): string | number | boolean | null {
  switch (cast) {
    case 'string':
      return raw;
    case 'number':
      return parseNumber(raw);
    case 'integer': {
      const value = parseNumber(raw);
      return value === null ? null : Math.trunc(value);
    }
    case 'boolean':
      return !FALSE_WORDS.has(raw.trim().toLowerCase());
  }
}
