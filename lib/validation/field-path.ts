import { printable } from './storable.js';

/**
 * `['custom_headers', 'Host']` -> `custom_headers.Host`; `['include_tags', 2]` -> `include_tags[2]`.
 * Names a caller chose are echoed with control characters and lone surrogates escaped.
 */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? printable(String(part)) : `.${printable(String(part))}`;
  }
  return out;
}
