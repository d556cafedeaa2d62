import type { Queryable } from '../store/db.js';
import { loadExitHealth } from '../store/proxy-pools.js';
import { isOutOfRotation, type ExitCandidate } from './selection.js';

export interface HealthCounts {
  healthy: number;
  cooling: number;
  authFailed: number;
}

/** How many of these exits are usable, cooling down, or out of rotation after a 407, per the shared health in the store. */
export async function readHealthCounts(db: Pick<Queryable, 'query'>, candidates: readonly ExitCandidate[], now = Date.now()): Promise<HealthCounts> {
  const rows = new Map((await loadExitHealth(db, now)).filter((row) => row.domain === '').map((row) => [row.exit_key, row]));
  const counts: HealthCounts = { healthy: 0, cooling: 0, authFailed: 0 };
  for (const candidate of candidates) {
    const row = rows.get(candidate.key);
    if (isOutOfRotation(candidate, row ? { ...row, cooldownUntil: row.cooldown_until, authFailedHash: row.auth_failed_hash } : undefined)) counts.authFailed += 1;
    else if ((row?.cooldown_until ?? 0) > now) counts.cooling += 1;
    else counts.healthy += 1;
  }
  return counts;
}
