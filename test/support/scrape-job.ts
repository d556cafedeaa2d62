import type { EngineName } from '../../lib/protocol/engines.js';
import { SCRAPE_JOB_TYPE, ScrapeJobSchema, type ScrapeJob } from '../../lib/protocol/index.js';
import { defaultScrapeParams } from '../../lib/scrape/defaults.js';

export interface WireJobFields {
  engine: EngineName;
  /** Scrape parameters as the gateway would have normalised them; the rest are at their defaults. */
  params: Record<string, unknown>;
  budgetMs: number;
  requestId: string;
  projectId: string;
  session?: unknown;
}

/** A ScrapeJob as a worker gets it: built like the gateway builds one, then decoded with the wire schema. */
export function wireJob(fields: WireJobFields): ScrapeJob {
  const now = Date.now();
  return ScrapeJobSchema.parse({
    type: SCRAPE_JOB_TYPE,
    request_id: fields.requestId,
    project_id: fields.projectId,
    engine: fields.engine,
    params: { ...defaultScrapeParams(), ...fields.params },
    deadline_at: now + fields.budgetMs,
    budget_ms: fields.budgetMs,
    dispatched_at: now,
    session: fields.session ?? null,
  });
}
