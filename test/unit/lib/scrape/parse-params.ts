import { expect } from 'vitest';
import { ServiceError } from '../../../../lib/errors/index.js';
import { parseScrapeBody, parseScrapeQuery, type ParseOptions, type ProjectDefaults } from '../../../../lib/scrape/params.js';
import type { ScrapeParams } from '../../../../lib/scrape/params-schema.js';

export const URL = 'https://example.com/page';

export function options(projectDefaults: ProjectDefaults = {}, allowUrl = true): ParseOptions {
  return { projectDefaults, egressPolicy: { allowLoopback: false }, allowUrl };
}

export function body(fields: Record<string, unknown>, defaults: ProjectDefaults = {}): ScrapeParams {
  return parseScrapeBody({ url: URL, ...fields }, options(defaults));
}

export function query(fields: Record<string, unknown>, defaults: ProjectDefaults = {}): ScrapeParams {
  return parseScrapeQuery({ url: URL, ...fields }, options(defaults));
}

/** Runs `run`, expects a ServiceError with `code`, and a detail containing `detailPart`. */
export function expectServiceError(run: () => unknown, code: string, detailPart: string): ServiceError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ServiceError);
  const error = caught as ServiceError;
  expect(error.code).toBe(code);
  expect(error.detail ?? '').toContain(detailPart);
  return error;
}
