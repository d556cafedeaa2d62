import { z } from 'zod';
import { ServiceError } from '../../lib/errors/index.js';
import { proxyCountryField, proxyField, stringIdField } from '../../lib/scrape/fields.js';
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

/** As the scrape's GET query reads booleans: true, false, 1 or 0. */
const flag = (fallback: boolean) =>
  z
    .string()
    .transform((value) => value.trim().toLowerCase())
    .pipe(z.enum(['true', 'false', '1', '0'], { message: 'must be true, false, 1 or 0' }))
    .transform((value) => value === 'true' || value === '1')
    .optional()
    .transform((value) => value ?? fallback);

const BrowserQuery = z.object({
  engine: z.enum(['chromium', 'obscura']).default('chromium'),
  ttl: seconds(BROWSER_TTL_MAX_SECONDS, 300),
  idle_timeout: seconds(BROWSER_IDLE_MAX_SECONDS, 60),
  headless: flag(true),
  proxy: proxyField.optional().transform((value) => value ?? null),
  premium_proxy: flag(false),
  proxy_country: proxyCountryField.optional().transform((value) => value ?? null),
  session_id: stringIdField.min(1).optional().transform((value) => value ?? null),
});

export type BrowserParams = z.output<typeof BrowserQuery>;

/** GET /v1/browser's query, strict: an unknown parameter, a bad value or a bad combination is a 400 naming it. */
export function parseBrowserQuery(query: Record<string, unknown>): BrowserParams {
  rejectUnknownParameters(query, Object.keys(BrowserQuery.shape));
  const parsed = BrowserQuery.safeParse(query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `Query parameter "${String(issue.path[0])}": ${issue.message}`);
  }
  const params = parsed.data;
  if (!params.headless && params.engine !== 'chromium') {
    throw new ServiceError('ERR::REQUEST::CAPABILITY_UNSUPPORTED', `headless=false needs engine=chromium (${params.engine} runs headless only)`);
  }
  if (params.proxy !== null && params.premium_proxy) {
    throw new ServiceError('ERR::REQUEST::INCOMPATIBLE_FLAGS', 'proxy (your own) and premium_proxy (a managed pool exit) exclude each other');
  }
  if (params.proxy_country !== null && !params.premium_proxy) {
    // As for a scrape: ignored beside the caller's own proxy, refused alone.
    if (params.proxy !== null) return { ...params, proxy_country: null };
    throw new ServiceError('ERR::REQUEST::INCOMPATIBLE_FLAGS', 'proxy_country needs premium_proxy=true');
  }
  return params;
}
