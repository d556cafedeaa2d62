import type { ScrapeJob } from '../../lib/protocol/index.js';
import { defaultScrapeParams } from '../../lib/scrape/defaults.js';
import type { ScrapeParams } from '../../lib/scrape/types.js';

/**
 * The job's parameters over the defaults (a render engine implies js_render). The gateway validated
 * and normalised them already (ScrapeJob.params is typed loosely only because it crosses the bus as JSON).
 */
export function renderParams(job: ScrapeJob): ScrapeParams {
  const merged: Record<string, unknown> = { ...defaultScrapeParams(), js_render: true };
  for (const [key, value] of Object.entries(job.params)) if (value !== undefined) merged[key] = value;
  return merged as unknown as ScrapeParams;
}
