import { createHash, randomBytes } from 'node:crypto';
import { monotonicFactory, isValid as isValidUlid } from 'ulid';

const nextUlid = monotonicFactory();

export function newId(): string {
  return nextUlid();
}

export function isUlid(value: string): boolean {
  return value.length === 26 && isValidUlid(value);
}

const UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** SPEC.md: resource ids are ULIDs; 32 or 36 character UUID forms are also accepted. */
export function isResourceId(value: string): boolean {
  return isUlid(value.toUpperCase()) || UUID_PATTERN.test(value);
}

export const KEY_ENVIRONMENTS = ['live', 'test'] as const;
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number];

const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
export const API_KEY_PATTERN = /^svc_(live|test)_[a-z2-7]{52}$/;
export const KEY_DISPLAY_LENGTH = 16;

/** A new secret: `svc_live_` or `svc_test_` and 52 characters of a-z2-7 (260 bits). */
export function generateApiKey(environment: KeyEnvironment): string {
  const bytes = randomBytes(52);
  let suffix = '';
  for (const byte of bytes) suffix += BASE32_ALPHABET[byte & 31];
  return `svc_${environment}_${suffix}`;
}

export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function keyDisplayPrefix(secret: string): string {
  return secret.slice(0, KEY_DISPLAY_LENGTH);
}

/** Query-string key parameters (SPEC.md Authentication 2): read on /v1/browser only, ignored everywhere else. */
export const QUERY_KEY_PARAMETERS: readonly string[] = ['apikey', 'api_key'];

export function isQueryKeyParameter(name: string): boolean {
  return QUERY_KEY_PARAMETERS.includes(name);
}
