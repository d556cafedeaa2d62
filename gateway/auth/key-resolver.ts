import { API_KEY_PATTERN, hashApiKey } from '../../lib/apikeys.js';
import { ServiceError } from '../../lib/errors/index.js';
import type { Queryable } from '../../lib/store/db.js';
import { findKeyBySecret, type KeyLookup } from '../../lib/store/accounts.js';
import { touchKeyUse } from '../../lib/store/dashboard/keys.js';

/** "Last used" (shown in the dashboard) is written at most this often per key and gateway. */
const TOUCH_EVERY_MS = 60_000;

export interface Principal extends KeyLookup {}

/**
 * Turns an Authorization header into a principal. Lookups are cached for at most `cacheSeconds`
 * (bounded by 60), which is what bounds how late a revocation or suspension takes effect.
 */
export class KeyResolver {
  private readonly cache = new Map<string, { lookup: KeyLookup | null; until: number }>();
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly db: Queryable,
    private readonly cacheSeconds: number,
  ) {}

  async resolve(authorization: string | undefined, now = Date.now()): Promise<Principal> {
    const secret = bearerSecret(authorization);
    if (!API_KEY_PATTERN.test(secret)) throw new ServiceError('ERR::AUTH::INVALID_KEY', 'API key is malformed or unknown');
    const lookup = await this.lookup(secret, now);
    if (!lookup) throw new ServiceError('ERR::AUTH::INVALID_KEY', 'API key is malformed or unknown');
    if (lookup.key.revoked_at && lookup.key.revoked_at.getTime() <= now) {
      throw new ServiceError('ERR::AUTH::REVOKED_KEY', 'API key has been revoked');
    }
    if (lookup.key.expires_at && lookup.key.expires_at.getTime() <= now) {
      throw new ServiceError('ERR::AUTH::EXPIRED_KEY', `API key expired at ${lookup.key.expires_at.toISOString()}`);
    }
    if (lookup.organization.status !== 'active') {
      throw new ServiceError('ERR::AUTH::FORBIDDEN', `Organization is ${lookup.organization.status}`);
    }
    this.touch(lookup.key.id, now);
    return lookup;
  }

  private touch(keyId: string, now: number): void {
    if ((this.touched.get(keyId) ?? 0) > now - TOUCH_EVERY_MS) return;
    if (this.touched.size > 10_000) this.touched.clear();
    this.touched.set(keyId, now);
    touchKeyUse(this.db, keyId).catch(() => this.touched.delete(keyId));
  }

  private async lookup(secret: string, now: number): Promise<KeyLookup | null> {
    const hash = hashApiKey(secret);
    const cached = this.cache.get(hash);
    if (cached && cached.until > now && cached.lookup) return cached.lookup;
    const lookup = await findKeyBySecret(this.db, secret);
    if (lookup && this.cacheSeconds > 0) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(hash, { lookup, until: now + this.cacheSeconds * 1000 });
    }
    return lookup;
  }
}

function bearerSecret(authorization: string | undefined): string {
  if (!authorization || /^(Bearer)?\s*$/i.test(authorization.trim())) {
    throw new ServiceError('ERR::AUTH::MISSING_KEY', 'Send the API key as Authorization: Bearer <API_KEY>');
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
  if (!match) throw new ServiceError('ERR::AUTH::INVALID_KEY', 'Authorization header must be "Bearer <API_KEY>"');
  return match[1];
}
