import { monotonicFactory, isValid as isValidUlid } from 'ulid';

const nextUlid = monotonicFactory();

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
