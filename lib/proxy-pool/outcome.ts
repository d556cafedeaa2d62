/**
 * What one use of a pool exit says of it (docs/proxy-pools.md, "Health"):
 * - `ok`: the target answered through it;
 * - `ban`: the target refused it (a vendor challenge, or a bare 403 or 429): the exit cools down for that domain;
 * - `dead`: the exit could not be used (unreachable, its provider's 429): the exit cools down;
 * - `auth`: the exit refused its credentials (407): out of rotation until they change;
 * - `neutral`: says nothing of the exit (the target's own failure, a timeout, a refused target).
 */
export type ExitOutcome = 'ok' | 'ban' | 'dead' | 'auth' | 'neutral';

/** Target statuses counted as a ban of the exit that received them. */
const BAN_STATUSES = new Set([403, 429]);

export function outcomeOf(result: { ok: boolean; target_status?: number; blocked: unknown; errorCode?: string | null }): ExitOutcome {
  if (result.blocked) return 'ban';
  if (result.ok) return BAN_STATUSES.has(result.target_status ?? 0) ? 'ban' : 'ok';
  switch (result.errorCode) {
    case 'ERR::PROXY::AUTH_FAILED':
      return 'auth';
    case 'ERR::PROXY::UNREACHABLE':
    case 'ERR::PROXY::RATE_LIMITED':
      return 'dead';
    default:
      return 'neutral';
  }
}
