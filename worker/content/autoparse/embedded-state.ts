import type { CheerioAPI } from 'cheerio';
import { flatText } from '../document.js';
import { endOfJsonValue, parseJsonSafely, readStringLiteral } from './json-text.js';

const ASSIGNMENT = /(?:window|self|globalThis)\s*\.\s*(__[A-Za-z0-9_$]+__)\s*=\s*|(?:window|self|globalThis)\s*\[\s*["'](__[A-Za-z0-9_$]+__)["']\s*\]\s*=\s*/g;
const JSON_PARSE_CALL = /^JSON\.parse\(\s*/;

/** The value assigned at `start`: a JSON literal, or `JSON.parse("...")` of one. Never evaluated. */
function readAssignedValue(script: string, start: number): unknown {
  const rest = script.slice(start, start + 16);
  const call = rest.match(JSON_PARSE_CALL);
  if (call) {
    const literal = readStringLiteral(script, start + call[0].length);
    return literal === undefined ? undefined : parseJsonSafely(literal);
  }
  const first = script[start];
  if (first !== '{' && first !== '[') return undefined;
  const end = endOfJsonValue(script, start);
  return end < 0 ? undefined : parseJsonSafely(script.slice(start, end));
}

/**
 * SPA state embedded in the page: `<script id="__NEXT_DATA__">`, `<script id="__NUXT_DATA__">`,
 * `window.__NAME__ = {...}` / `JSON.parse("...")` assignments, and every other application/json block.
 */
export function readEmbeddedState($: CheerioAPI): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  const jsonBlocks: Array<{ id: string | null; data: unknown }> = [];
  $('script[type="application/json" i], script[type="application/vnd.json" i]').each((_, element) => {
    const data = parseJsonSafely(flatText(element));
    if (data === undefined) return;
    const id = 'attribs' in element ? (element.attribs.id ?? null) : null;
    if (id === '__NEXT_DATA__' || id === '__NUXT_DATA__') state[id] = data;
    else jsonBlocks.push({ id, data });
  });
  $('script:not([type]), script[type="text/javascript" i], script[type="module" i]').each((_, element) => {
    const script = flatText(element);
    for (const match of script.matchAll(ASSIGNMENT)) {
      const name = match[1] ?? match[2];
      if (name in state) continue;
      const value = readAssignedValue(script, (match.index ?? 0) + match[0].length);
      if (value !== undefined) state[name] = value;
    }
  });
  if (jsonBlocks.length > 0) state.application_json = jsonBlocks;
  return state;
}
