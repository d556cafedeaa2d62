import { codeAnchor } from '../../lib/errors/index.js';
import type { GatewayContext } from '../context.js';
import { plainEntry } from './plain-entry.js';

/** A request refused before any route saw it (Node's parser refused it, or CONNECT), as far as it was read. */
export interface RefusedRequest {
  requestId: string;
  receivedAt: number;
  /** The Authorization header's value, when one was read. */
  authorization: string | undefined;
  method: string;
  path: string;
  detail: string;
}

export type RecordRefused = (refused: RefusedRequest) => Promise<void>;

/**
 * Records a refused request under the project of the key it carried, so its X-Request-Id resolves
 * with GET /v1/requests/{id} like any other (cross-cutting rule 5). Without a valid key nothing is
 * recorded: the record could belong to no organization.
 */
export function recordRefused(context: GatewayContext): RecordRefused {
  return async (refused) => {
    if (refused.authorization === undefined) return;
    let principal;
    try {
      principal = await context.keys.resolve(refused.authorization);
    } catch {
      return;
    }
    if (principal.key.internal === true) return;
    const entry = plainEntry({
      id: refused.requestId,
      receivedAt: refused.receivedAt,
      projectId: principal.project.id,
      httpStatus: 400,
      errorCode: codeAnchor('ERR::REQUEST::INVALID'),
      errorDetail: refused.detail,
      bytesIn: 0,
      route: refused.path,
      method: refused.method,
    });
    context.requestLog.add(entry, principal.organization.id);
  };
}
