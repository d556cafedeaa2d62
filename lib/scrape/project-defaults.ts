import { ServiceError } from '../errors/index.js';
import { DEFAULT_EGRESS_POLICY } from '../egress/policy.js';
import { parseScrapeBody, type ProjectDefaults } from './params.js';

/** The parameter rows marked "project default" (docs/parameters.md): the fields a project may store. */
export const PROJECT_DEFAULT_FIELDS = [
  'js_render',
  'stealth',
  'impersonate',
  'mode',
  'engine',
  'premium_proxy',
  'proxy_country',
  'block_resources',
  'custom_headers',
  'links',
  'main_content_only',
] as const satisfies ReadonlyArray<keyof ProjectDefaults>;

const PROBE_URL = 'https://example.com/';

/**
 * Stored project defaults from a request body, checked by the very rules a scrape body meets (field
 * types, values, flag combinations), and normalised as a scrape would normalise them. Throws the same
 * 400 problems; any field outside PROJECT_DEFAULT_FIELDS is refused by name.
 */
export function parseProjectDefaults(body: unknown): ProjectDefaults {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ServiceError('ERR::REQUEST::INVALID', 'defaults must be a JSON object');
  }
  const present = Object.entries(body).filter(([, value]) => value !== null && value !== undefined);
  const unknown = present.map(([name]) => name).filter((name) => !(PROJECT_DEFAULT_FIELDS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `${unknown.join(', ')}: not a project default (allowed: ${PROJECT_DEFAULT_FIELDS.join(', ')})`);
  }
  const params = parseScrapeBody({ ...Object.fromEntries(present), url: PROBE_URL }, { projectDefaults: {}, egressPolicy: DEFAULT_EGRESS_POLICY });
  const out: Record<string, unknown> = {};
  for (const [name] of present) out[name] = params[name as keyof typeof params];
  return out as ProjectDefaults;
}
