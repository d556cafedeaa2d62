import { isResourceId, isUlid } from '../../lib/ids.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const UUID_HEX = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * The stored (ULID) form of a request id from a path, or null when it is malformed. ULIDs are matched
 * case-insensitively. A UUID is read as the 128 bits it spells and turned into the ULID with the same
 * bits, so the UUID form of one of our ids finds its record; any other UUID simply matches nothing.
 */
export function requestLogIdFrom(raw: string): string | null {
  if (!isResourceId(raw)) return null;
  if (UUID_HEX.test(raw)) return ulidFromUuid(raw);
  const upper = raw.toUpperCase();
  // A first character above 7 would need more than 128 bits: the ULID spec calls that invalid.
  return isUlid(upper) && upper[0] <= '7' ? upper : null;
}

export function ulidFromUuid(uuid: string): string {
  let bits = BigInt(`0x${uuid.replaceAll('-', '')}`);
  let out = '';
  for (let i = 0; i < 26; i += 1) {
    out = CROCKFORD[Number(bits & 31n)] + out;
    bits >>= 5n;
  }
  return out;
}

/** The UUID spelling of a ULID's 128 bits (for tests and docs). */
export function uuidFromUlid(ulid: string): string {
  let bits = 0n;
  for (const char of ulid.toUpperCase()) bits = (bits << 5n) | BigInt(CROCKFORD.indexOf(char));
  const hex = bits.toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
