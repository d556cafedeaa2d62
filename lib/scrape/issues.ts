import type { z } from 'zod';
import { ServiceError } from '../errors/index.js';

const MAX_ISSUES_IN_DETAIL = 5;

/** `['custom_headers', 'Host']` -> `custom_headers.Host`; `['include_tags', 2]` -> `include_tags[2]`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

function describe(issue: z.core.$ZodIssue): string[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${fieldPath([...issue.path, key])}: unknown parameter`);
  }
  const where = fieldPath(issue.path);
  return [where === '' ? issue.message : `${where}: ${issue.message}`];
}

/** A failed parse as ERR::REQUEST::INVALID_PARAMETER whose detail names every offending field. */
export function invalidParameter(error: z.ZodError, prefix: readonly PropertyKey[] = []): ServiceError {
  const lines = error.issues
    .map((issue) => ({ ...issue, path: [...prefix, ...issue.path] }) as z.core.$ZodIssue)
    .flatMap(describe);
  const shown = lines.slice(0, MAX_ISSUES_IN_DETAIL);
  const more = lines.length - shown.length;
  const detail = shown.join('; ') + (more > 0 ? `; and ${more} more` : '');
  return new ServiceError('ERR::REQUEST::INVALID_PARAMETER', detail);
}

export function incompatible(detail: string): ServiceError {
  return new ServiceError('ERR::REQUEST::INCOMPATIBLE_FLAGS', detail);
}
