import { z } from 'zod';
import { checkTargetUrl, type EgressPolicy } from '../../lib/egress/policy.js';
import { URL_MAX_CHARS, urlField } from '../../lib/scrape/fields.js';
import { invalidParameter } from '../../lib/scrape/issues.js';
import { parseScrapeBody, type ParseOptions } from '../../lib/scrape/params.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import { unstorableReason } from '../../lib/validation/storable.js';

const ItemUrlSchema = z.object({ url: urlField });

/**
 * An item without overrides runs with its job's parameters and its own url, and the url changes
 * nothing else a parse produces (routing and price never read it). So a job's bare items share one
 * parse of the job parameters (`shared`, made once by the caller) and each checks only its url, as
 * the full parse would check it: thousands of urls cost one parse, not one each (docs/batch.md).
 */
export function itemParams(
  input: { jobParams: Record<string, unknown>; overrides: Record<string, unknown>; url: string },
  options: ParseOptions,
  shared: () => ScrapeParams,
): ScrapeParams {
  if (Object.keys(input.overrides).length > 0) return parseScrapeBody({ ...input.jobParams, ...input.overrides, url: input.url }, options);
  return { ...shared(), url: checkItemUrl(input.url, options.egressPolicy) };
}

/** The job parameters alone, parsed as a batch body's top level (no url). */
export function parseJobParams(jobParams: Record<string, unknown>, options: ParseOptions): ScrapeParams {
  return parseScrapeBody(jobParams, { ...options, allowUrl: false });
}

/**
 * `urlField`'s checks, run directly for the url that passes them (every url of a job is checked at
 * submission and again when it runs); the schema only words the refusal of one that does not.
 */
function checkItemUrl(url: string, egressPolicy: EgressPolicy): string {
  if (typeof url !== 'string' || url.length > URL_MAX_CHARS || unstorableReason(url) !== null) {
    const parsed = ItemUrlSchema.safeParse({ url });
    if (!parsed.success) throw invalidParameter(parsed.error);
  }
  return checkTargetUrl(url, egressPolicy).href;
}
