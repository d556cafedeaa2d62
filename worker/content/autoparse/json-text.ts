import { CONTENT_LIMITS } from '../content-limits.js';

/** Deeper JSON than this is dropped: serialising it again (JSON.stringify, structured clone) recurses. */
const MAX_JSON_DEPTH = 64;

function depthWithin(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= max) return false;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return true;
}

/** JSON.parse that answers undefined for malformed, oversized or too deeply nested text. */
export function parseJsonSafely(text: string): unknown {
  if (text.length > CONTENT_LIMITS.maxEmbeddedJsonChars) return undefined;
  const cleaned = text
    .trim()
    .replace(/^<!--|-->$/g, '')
    .replace(/^\s*\/\/\s*<!\[CDATA\[|\/\/\s*\]\]>\s*$/g, '')
    .trim()
    .replace(/;$/, '');
  if (cleaned === '') return undefined;
  try {
    const value: unknown = JSON.parse(cleaned);
    return depthWithin(value, MAX_JSON_DEPTH) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Index just past the JSON object/array starting at `start`, or -1 when it never closes. */
export function endOfJsonValue(source: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < source.length; i += 1) {
    const char = source[i];
    if (inString) {
      if (char === '\\') i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') depth += 1;
    else if (char === '}' || char === ']') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** The value of a JavaScript string literal at `start` (quote character included), or undefined. */
export function readStringLiteral(source: string, start: number): string | undefined {
  const quote = source[start];
  if (quote !== '"' && quote !== "'") return undefined;
  let json = '"';
  for (let i = start + 1; i < source.length; i += 1) {
    const char = source[i];
    if (char === quote) return parseJsonString(`${json}"`);
    if (char === '\\') {
      const next = source[i + 1];
      json += next === "'" ? "'" : `\\${next}`;
      i += 1;
    } else json += char === '"' ? '\\"' : char;
  }
  return undefined;
}

function parseJsonString(literal: string): string | undefined {
  try {
    const value: unknown = JSON.parse(literal);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
