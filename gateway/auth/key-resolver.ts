import { API_KEY_PATTERN, hashApiKey } from '../../lib/apikeys.js';
import { ServiceError } from '../../lib/errors/index.js';
import type { Queryable } from '../../lib/store/db.js';
import { findKeyBySecret, onKeyCreated, type KeyLookup } from '../../lib/store/accounts.js';
import { touchKeyUse } from '../../lib/store/dashboard/keys.js';

/** "Last used" (shown in the dashboard) is written at most this often per key and gateway. */
const TOUCH_EVERY_MS = 60_000;

/** Unknown keys remembered at most; the oldest is forgotten first. */
export const MAX_UNKNOWN_KEYS = 10_000;

export interface Principal extends KeyLookup {}

/**
 * Turns an Authorization header into a principal. Lookups are cached for at most `cacheSeconds`
 * (bounded by 60), which is what bounds how late a revocation or suspension takes effect.
 *
 * A well-formed key the store does not know is remembered as unknown for as long (at most
 * MAX_UNKNOWN_KEYS of them), so repeating it costs no query. Creating a key in this process drops its
 * entry at once; elsewhere (another replica, the CLI) the entry lasts at most `cacheSeconds`, and only a
 * secret chosen before its key existed (TRAWLER_BOOTSTRAP_KEY, created before the gateway serves) can
 * have been tried: a generated one has 260 random bits (docs/platform.md "Auth").
 */
export class KeyResolver {
  private readonly cache = new Map<string, { lookup: KeyLookup; until: number }>();
  private readonly unknown = new Map<string, number>();
  private readonly touched = new Map<string, number>();
  private creations = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly db: Queryable,
    private readonly cacheSeconds: number,
  ) {
    this.unsubscribe = onKeyCreated((hash) => {
      this.creations += 1;
      this.unknown.delete(hash);
    });
  }

  close(): void {
    this.unsubscribe();
  }

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
    if (cached && cached.until > now) return cached.lookup;
    const unknownUntil = this.unknown.get(hash);
    if (unknownUntil !== undefined && unknownUntil > now) return null;
    this.unknown.delete(hash);
    const creationsBefore = this.creations;
    const lookup = await findKeyBySecret(this.db, secret);
    if (this.cacheSeconds === 0) return lookup;
    const until = now + this.cacheSeconds * 1000;
    if (lookup) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(hash, { lookup, until });
    } else if (creationsBefore === this.creations) {
      // A key created while the query ran may be this one: then it is not remembered as unknown.
      if (this.unknown.size >= MAX_UNKNOWN_KEYS) this.unknown.delete(this.unknown.keys().next().value as string);
      this.unknown.set(hash, until);
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
