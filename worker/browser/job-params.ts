import type { ScrapeJob } from '../../lib/protocol/index.js';
import { DEFAULT_SCRAPE_PARAMS } from '../../lib/scrape/defaults.js';
import type { ScrapeParams } from '../../lib/scrape/types.js';

/** What the engine reads when a field is missing (the gateway normally sends every field). */
const RENDER_DEFAULTS: ScrapeParams = { ...DEFAULT_SCRAPE_PARAMS, js_render: true };

/**
 * The job's parameters with defaults under them. The gateway validated and normalised them
 * already (ScrapeJob.params is typed loosely only because it crosses the bus as JSON).
 */
export function renderParams(job: ScrapeJob): ScrapeParams {
  const merged: Record<string, unknown> = { ...RENDER_DEFAULTS };
  for (const [key, value] of Object.entries(job.params)) if (value !== undefined) merged[key] = value;
  return merged as unknown as ScrapeParams;
}
