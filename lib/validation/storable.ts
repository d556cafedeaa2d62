import { z } from 'zod';

/** A surrogate half without its partner (matched on UTF-16 code units, so no `u` flag). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
/** Cheap first test: most text has neither NUL nor any surrogate. */
const MAYBE_UNSTORABLE = /[\u0000\uD800-\uDFFF]/;
/** How JSON.stringify writes U+0000 and a lone surrogate (a paired one stays raw); may also match an escaped backslash's text. */
const ESCAPED_UNSTORABLE = /\\u(0000|d[89a-f])/i;
const UNPRINTABLE = new RegExp(`[\\u0000-\\u001f\\u007f]|${LONE_SURROGATE.source}`, 'g');

/**
 * Why PostgreSQL cannot hold `text`, or null: `text` and `jsonb` refuse U+0000, and `jsonb` refuses a
 * `\uD800` escape without its pair (JSON.stringify writes lone surrogates that way). UTF-8 has no
 * encoding for a lone surrogate at all, so such a string is not Unicode text (docs/parameters.md "Text").
 */
export function unstorableReason(text: string): string | null {
  if (!MAYBE_UNSTORABLE.test(text)) return null;
  if (text.includes('\u0000')) return 'contains a NUL character (U+0000), which is not accepted';
  const lone = LONE_SURROGATE.exec(text);
  if (lone) return `contains a lone surrogate (U+${lone[0].charCodeAt(0).toString(16).toUpperCase()}), which is not valid Unicode text`;
  return null;
}

/** The shared schema for every string that can reach the store: z.string() refusing NUL and lone surrogates. */
export function storableString() {
  return z.string().superRefine((value, ctx) => {
    const reason = unstorableReason(value);
    if (reason) ctx.addIssue({ code: 'custom', message: reason });
  });
}

/** A caller's text safe to echo in a problem detail or a log: control characters and lone surrogates as \uXXXX. */
export function printable(text: string, maxChars = 128): string {
  const short = text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
  return short.replace(UNPRINTABLE, (match) => `\\u${match.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `text` with NUL and lone surrogates replaced by U+FFFD: what a record the service writes keeps of them. */
export function storableText(text: string): string {
  if (unstorableReason(text) === null) return text;
  return text.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD');
}

/**
 * JSON.stringify for a record the service writes itself (request log): any text the store cannot
 * hold is replaced, in keys and values, so the write cannot fail on what a caller sent.
 */
export function storableJson(value: unknown): string {
  // JSON.stringify writes NUL and lone surrogates as \u escapes: without any, no text needs replacing.
  const plain = JSON.stringify(value);
  if (!ESCAPED_UNSTORABLE.test(plain)) return plain;
  return JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'string') return storableText(item);
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const entries = Object.entries(item as Record<string, unknown>);
    if (entries.every(([name]) => unstorableReason(name) === null)) return item;
    return Object.fromEntries(entries.map(([name, inner]) => [storableText(name), inner]));
  });
}
