import { ServiceError } from '../lib/errors/index.js';
import { isQueryKeyParameter } from '../lib/apikeys.js';

/**
 * Refuses a query parameter the route does not take (400 naming it). Query-string API keys are
 * not unknown: every route but GET /v1/browser ignores them (docs/api-reference.md "Authentication").
 */
export function rejectUnknownParameters(query: Record<string, unknown>, known: readonly string[]): void {
  for (const name of Object.keys(query)) {
    if (!known.includes(name) && !isQueryKeyParameter(name)) {
      throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `Query parameter "${name}" is not a parameter of this route`);
    }
  }
}
