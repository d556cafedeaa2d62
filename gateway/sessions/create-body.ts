import { z } from 'zod';
import { storableString } from '../../lib/validation/storable.js';
import { keepMostUseful, MAX_DOMAIN_SCORES } from '../../lib/store/sessions/domain-scores.js';
import { ServiceError } from '../../lib/errors/index.js';
import { ENGINE_NAMES, type EngineName } from '../../lib/protocol/index.js';
import { incompatible, invalidParameter } from '../../lib/scrape/issues.js';
import {
  MAX_SESSION_CONTEXT_BYTES,
  SessionContextSchema,
  contextBytes,
  emptyContext,
  type DomainScore,
  type SessionContext,
  type SessionProxyIntent,
} from '../../lib/store/sessions/index.js';

export const DEFAULT_SESSION_TTL_SECONDS = 1800;
export const MAX_REGION_POOL_LENGTH = 64;
export const MAX_STICKY_KEY_LENGTH = 128;
/** Used when no render engine is asked for: the first of these that is deployed, else fetch. */
const DEFAULT_ENGINE_ORDER: readonly EngineName[] = ['obscura', 'chromium'];

const STICKY_KEY = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;
const REGISTRABLE_DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

const EngineSchema = z
  .string()
  .transform((value) => value.toLowerCase())
  .pipe(z.enum(ENGINE_NAMES, { message: `engine must be one of ${ENGINE_NAMES.join(', ')}` }));

const DomainScoreSchema = z.strictObject({
  score: z.number().nonnegative(),
  good: z.number().int().nonnegative().default(0),
  bad: z.number().int().nonnegative().default(0),
  last_updated: z.number().int().nonnegative().optional(),
  retired: z.boolean().default(false),
});

/** The POST /v1/sessions body (also what the API reference describes). */
export const CreateSessionSchema = z.strictObject({
  engine: EngineSchema.nullish(),
  ttl_seconds: z.number().int().nonnegative().nullish(),
  sticky_key: storableString().nullish(),
  region_pool: storableString().nullish(),
  rotate_ip: z.boolean().nullish(),
  premium_proxy: z.boolean().nullish(),
  proxy_country: z.string().regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code').nullish(),
  fingerprint: z.record(storableString(), z.unknown()).nullish(),
  domain_scores: z
    .record(z.string().regex(REGISTRABLE_DOMAIN, 'keys must be lowercase registrable domains'), DomainScoreSchema)
    .nullish(),
  session_context: SessionContextSchema.nullish(),
});
type CreateSessionBody = z.infer<typeof CreateSessionSchema>;

export interface SessionDeployment {
  /** Engines with a ready pool right now. */
  deployed: ReadonlySet<EngineName>;
  /** The organization's maximum TTL. */
  maxTtlSeconds: number;
}

/** Everything decided from the body, ready for the store; `stickyKey` null means "derive from the id". */
export interface SessionPlan {
  engine: EngineName;
  ttlSeconds: number;
  stickyKey: string | null;
  proxy: SessionProxyIntent;
  fingerprint: Record<string, unknown> | null;
  domainScores: Record<string, DomainScore>;
  context: SessionContext;
  warnings: string[];
}

/**
 * POST /v1/sessions body, every rule of docs/sessions.md: 400s first (shape, then flag combinations),
 * then 413 for the context, then 503 for what this deployment cannot provide. Nothing is created
 * before all of them pass.
 */
export function planSession(raw: unknown, deployment: SessionDeployment, nowSeconds: number): SessionPlan {
  const body = parseBody(raw);
  const warnings: string[] = [];
  const stickyKey = stickyKeyOf(body);
  if (body.proxy_country && body.premium_proxy !== true) {
    throw incompatible('proxy_country requires premium_proxy: true');
  }
  const engine = body.engine ?? DEFAULT_ENGINE_ORDER.find((name) => deployment.deployed.has(name)) ?? 'fetch';
  const fingerprint = body.fingerprint && Object.keys(body.fingerprint).length > 0 ? body.fingerprint : null;
  if (fingerprint && engine !== 'camoufox') throw incompatible(`fingerprint needs engine camoufox; this session's engine is ${engine}`);
  const ttlSeconds = ttlOf(body, deployment.maxTtlSeconds, warnings);
  const region = body.region_pool?.trim() ?? '';
  if (region.length > MAX_REGION_POOL_LENGTH) {
    throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `region_pool: longer than ${MAX_REGION_POOL_LENGTH} characters`);
  }
  const domainScores = keepSubmitted(body.domain_scores ?? {}, nowSeconds, warnings);
  const context = body.session_context ?? emptyContext();
  if (contextBytes(context) > MAX_SESSION_CONTEXT_BYTES) {
    throw new ServiceError('ERR::REQUEST::PAYLOAD_TOO_LARGE', `session_context is over ${MAX_SESSION_CONTEXT_BYTES} bytes serialised`);
  }
  if (engine !== 'fetch' && !deployment.deployed.has(engine)) {
    const deployed = ['fetch', ...[...deployment.deployed].filter((name) => name !== 'fetch')].join(', ');
    throw new ServiceError('ERR::ENGINE::UNAVAILABLE', `Engine ${engine} is not deployed; deployed engines: ${deployed}`);
  }
  return {
    engine,
    ttlSeconds,
    stickyKey,
    proxy: {
      tier: body.premium_proxy === true ? 'residential' : 'none',
      country: body.proxy_country ? body.proxy_country.toUpperCase() : null,
      region_pool: region === '' ? null : region,
    },
    fingerprint,
    domainScores,
    context,
    warnings,
  };
}

function parseBody(raw: unknown): CreateSessionBody {
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ServiceError('ERR::REQUEST::INVALID', 'Request body must be a JSON object');
  }
  const parsed = CreateSessionSchema.safeParse(raw);
  if (!parsed.success) throw invalidParameter(parsed.error);
  return parsed.data;
}

function stickyKeyOf(body: CreateSessionBody): string | null {
  if (body.sticky_key === undefined || body.sticky_key === null) return body.rotate_ip === true ? '' : null;
  if (body.rotate_ip === true) throw incompatible('sticky_key cannot be combined with rotate_ip');
  if (body.sticky_key.length > MAX_STICKY_KEY_LENGTH || !STICKY_KEY.test(body.sticky_key)) {
    throw new ServiceError(
      'ERR::REQUEST::INVALID_PARAMETER',
      `sticky_key: letters, digits and hyphens only, not starting or ending with a hyphen, at most ${MAX_STICKY_KEY_LENGTH} characters`,
    );
  }
  return body.sticky_key;
}

function ttlOf(body: CreateSessionBody, maxTtlSeconds: number, warnings: string[]): number {
  const asked = body.ttl_seconds ?? 0;
  if (asked > maxTtlSeconds) {
    throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `ttl_seconds: above the organization maximum of ${maxTtlSeconds} seconds`);
  }
  if (asked !== 0) return asked;
  if (DEFAULT_SESSION_TTL_SECONDS <= maxTtlSeconds) return DEFAULT_SESSION_TTL_SECONDS;
  warnings.push(`ttl_seconds: the default ${DEFAULT_SESSION_TTL_SECONDS} was reduced to the organization maximum of ${maxTtlSeconds}`);
  return maxTtlSeconds;
}

type DomainScoreInput = z.infer<typeof DomainScoreSchema>;

function keepSubmitted(input: Record<string, DomainScoreInput>, nowSeconds: number, warnings: string[]): Record<string, DomainScore> {
  const entries = Object.entries(input).map(([domain, entry]): [string, DomainScore] => [domain, { ...entry, last_updated: entry.last_updated ?? nowSeconds }]);
  const { kept, evicted } = keepMostUseful(entries);
  if (evicted > 0) warnings.push(`domain_scores: ${evicted} least useful entries evicted (limit ${MAX_DOMAIN_SCORES})`);
  return kept;
}
