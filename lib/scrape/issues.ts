import type { z } from 'zod';
import { ServiceError } from '../errors/index.js';
import { fieldPath } from '../validation/field-path.js';
import { didYouMean } from './parameter-hints.js';

const MAX_ISSUES_IN_DETAIL = 5;

function describe(issue: z.core.$ZodIssue): string[] {
  if (issue.code === 'unrecognized_keys') {
    // Only a top-level name is a parameter name someone may have brought from another API.
    return issue.keys.map((key) => `${fieldPath([...issue.path, key])}: unknown parameter${issue.path.length === 0 ? didYouMean(key) : ''}`);
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
