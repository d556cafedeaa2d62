import { ServiceError } from '../errors/index.js';
import { isQueryKeyParameter } from '../apikeys.js';
import { decodeJsonInput } from '../validation/json-input.js';
import { QUERY_ENCODING, URL_MAX_CHARS, type QueryEncoding } from './fields.js';


function invalid(detail: string): ServiceError {
  return new ServiceError('ERR::REQUEST::INVALID_PARAMETER', detail);
}

function decodeBoolean(name: string, raw: string): boolean {
  const lower = raw.trim().toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  throw invalid(`${name}: must be true, false, 1 or 0`);
}

function decodeInteger(name: string, raw: string): number {
  const trimmed = raw.trim();
  if (!/^[+-]?\d+$/.test(trimmed)) throw invalid(`${name}: must be an integer`);
  return Number(trimmed);
}

function decodeJson(name: string, raw: string): unknown {
  return decodeJsonInput(raw, name);
}

/** Comma-separated list; a value starting with `[` is read as a JSON array (selectors containing commas). */
function decodeList(name: string, raw: string): unknown {
  if (raw.trimStart().startsWith('[')) return decodeJson(name, raw);
  return raw.split(',').map((item) => item.trim());
}

function decodeIntegerList(name: string, raw: string): unknown {
  const items = decodeList(name, raw);
  if (!Array.isArray(items)) return items;
  return items.map((item: unknown, index) =>
    typeof item === 'string' ? decodeInteger(`${name}[${index}]`, item) : item,
  );
}

function decodeValue(name: string, encoding: QueryEncoding, raw: string): unknown {
  switch (encoding) {
    case 'string':
      return raw;
    case 'boolean':
      return decodeBoolean(name, raw);
    case 'integer':
      return decodeInteger(name, raw);
    case 'list':
      return decodeList(name, raw);
    case 'integer-list':
      return decodeIntegerList(name, raw);
    case 'json':
      return decodeJson(name, raw);
  }
}

/**
 * Express 5 `req.query` -> the same object shape a POST body carries, per docs/parameters.md's GET encoding
 * table. Unknown names are passed through untouched so the strict body schema names them.
 */
export function decodeScrapeQuery(query: Record<string, unknown>): Record<string, unknown> {
  const decoded: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    // Query-string keys are ignored on this route: never used, never an error.
    if (isQueryKeyParameter(name.toLowerCase())) continue;
    if (Array.isArray(value)) throw invalid(`${name}: given more than once; send it once (lists are comma-separated)`);
    if (typeof value !== 'string') throw invalid(`${name}: malformed query parameter`);
    if (name === 'url' && value.length > URL_MAX_CHARS) {
      throw invalid(`url: must be at most ${URL_MAX_CHARS} characters`);
    }
    const encoding = Object.hasOwn(QUERY_ENCODING, name) ? QUERY_ENCODING[name as keyof typeof QUERY_ENCODING] : 'string';
    decoded[name] = decodeValue(name, encoding, value);
  }
  return decoded;
}
