import { ServiceError } from '../errors/index.js';
import { EXTRACT_LIMITS } from './types.js';

/** Walk state shared by both readers: where we are (for messages) and what has been spent. */
export class RuleReader {
  private ruleCount = 0;

  fail(path: string, why: string): never {
    throw new ServiceError('ERR::EXTRACT::INVALID_RULES', path ? `extract.${path}: ${why}` : `extract: ${why}`);
  }

  countRule(path: string, depth: number): void {
    this.ruleCount += 1;
    if (this.ruleCount > EXTRACT_LIMITS.maxRules) this.fail(path, `more than ${EXTRACT_LIMITS.maxRules} rules`);
    if (depth > EXTRACT_LIMITS.maxDepth) this.fail(path, `nested deeper than ${EXTRACT_LIMITS.maxDepth} levels`);
  }

  fieldName(parent: string, name: string): string {
    const path = parent ? `${parent}.${name}` : name;
    if (name === '' || name.length > EXTRACT_LIMITS.maxFieldNameLength) {
      this.fail(parent, `field names must be 1 to ${EXTRACT_LIMITS.maxFieldNameLength} characters`);
    }
    if (name === '__proto__') this.fail(path, 'reserved field name');
    return path;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
