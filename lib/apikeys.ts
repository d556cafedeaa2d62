import { hash, randomBytes } from 'node:crypto';

/** The API-key format: environments, the secret's shape, its hash and display prefix. */
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
  // The one-shot form: no Hash object per request (the key resolver hashes every request's key).
  return hash('sha256', secret, 'hex');
}

export function keyDisplayPrefix(secret: string): string {
  return secret.slice(0, KEY_DISPLAY_LENGTH);
}

/** Query-string key parameters: read on /v1/browser only, ignored everywhere else (docs/api-reference.md "Authentication"). */
export const QUERY_KEY_PARAMETERS: readonly string[] = ['apikey', 'api_key'];

export function isQueryKeyParameter(name: string): boolean {
  return QUERY_KEY_PARAMETERS.includes(name);
}
