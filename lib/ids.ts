import { randomFillSync } from 'node:crypto';
import { monotonicFactory, isValid as isValidUlid } from 'ulid';

const pool = new Uint8Array(4096);
let poolAt = pool.length;

/**
 * ulid's own generator asks the system for one random byte per character (16 calls per id, a few
 * percent of a scrape's CPU); this hands out bytes of one refilled buffer, each as uniform in [0, 1)
 * as ulid's own (256 values, so each of the 32 characters equally likely).
 */
function pooledRandom(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const byte = pool[poolAt];
  poolAt += 1;
  return byte / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

export function newId(): string {
  return nextUlid();
}

export function isUlid(value: string): boolean {
  return value.length === 26 && isValidUlid(value);
}

const UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** Resource ids are ULIDs; 32 or 36 character UUID forms are also accepted (docs/api-reference.md). */
export function isResourceId(value: string): boolean {
  return isUlid(value.toUpperCase()) || UUID_PATTERN.test(value);
}
