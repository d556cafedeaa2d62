import { z } from 'zod';
import { ServiceError } from '../../lib/errors/index.js';
import { rejectUnknownParameters } from '../query-parameters.js';

/** Ceilings of a remote-browser connection (docs/remote-browser.md "Query parameters"). */
export const BROWSER_TTL_MAX_SECONDS = 3600;
export const BROWSER_IDLE_MAX_SECONDS = 600;

const seconds = (max: number, fallback: number) =>
  z
    .string()
    .regex(/^[1-9][0-9]*$/, 'a whole number of seconds')
    .transform(Number)
    .pipe(z.number().int().min(1).max(max))
    .optional()
    .transform((value) => value ?? fallback);

const BrowserQuery = z.object({
  engine: z.enum(['chromium', 'obscura']).default('chromium'),
  ttl: seconds(BROWSER_TTL_MAX_SECONDS, 300),
  idle_timeout: seconds(BROWSER_IDLE_MAX_SECONDS, 60),
});

export type BrowserParams = z.output<typeof BrowserQuery>;

/** GET /v1/browser's query, strict: an unknown parameter or a bad value is a 400 naming it. */
export function parseBrowserQuery(query: Record<string, unknown>): BrowserParams {
  rejectUnknownParameters(query, Object.keys(BrowserQuery.shape));
  const parsed = BrowserQuery.safeParse(query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `Query parameter "${String(issue.path[0])}": ${issue.message}`);
  }
  return parsed.data;
}
