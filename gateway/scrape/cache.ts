import { createHash } from 'node:crypto';
import { ScrapeSuccessSchema, type ScrapeSuccess } from '../../lib/protocol/index.js';
import { isBillableStatus } from '../../lib/billing/cost.js';
import { effectiveCacheTtlSeconds } from '../../lib/scrape/cache-policy.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import type { Queryable } from '../../lib/store/db.js';
import { deleteCacheOlderThan, selectCachedResult, upsertCachedResult } from '../../lib/store/scrape-cache.js';

/** Parameters that change what is answered belong in the key; billing and cache controls do not. */
const NOT_IN_KEY: ReadonlySet<keyof ScrapeParams> = new Set(['cache', 'cache_ttl', 'max_cost', 'original_status']);
/** The longest `cache_ttl` a reader may ask for; older entries are purged. */
export const CACHE_MAX_AGE_SECONDS = 604_800;

/**
 * The cache key: SHA-256 of the project and every answer-shaping parameter in canonical form. Per
 * project, so cached pages (fetched with a tenant's headers or proxy) never cross tenants.
 */
export function cacheKey(params: ScrapeParams): string {
  const shaping = Object.fromEntries(
    Object.entries(params)
      .filter(([name]) => !NOT_IN_KEY.has(name as keyof ScrapeParams))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  return createHash('sha256').update(canonicalJson(shaping)).digest('hex');
}

/** A result at most `cache_ttl` seconds old (the reader's TTL is a max-age), or null. */
export async function readCache(db: Queryable, projectId: string, params: ScrapeParams): Promise<ScrapeSuccess | null> {
  const text = await selectCachedResult(db, projectId, cacheKey(params), effectiveCacheTtlSeconds(params));
  if (text === null) return null;
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = ScrapeSuccessSchema.safeParse(stored);
  return parsed.success ? parsed.data : null;
}

/**
 * Only billable successes are worth serving again; a 500 page or an undelivered screenshot is not.
 * Stored as JSON text, so any string a page holds (NUL, lone surrogates) is kept as an escape.
 */
export async function writeCache(db: Queryable, projectId: string, params: ScrapeParams, success: ScrapeSuccess): Promise<void> {
  if (!isBillableStatus(success.target_status, params) || success.screenshot_delivered === false) return;
  await upsertCachedResult(db, {
    projectId,
    cacheKey: cacheKey(params),
    engine: success.engine,
    targetStatus: success.target_status,
    resultJson: JSON.stringify(success),
  });
}

export function purgeCache(db: Queryable): Promise<number> {
  return deleteCacheOlderThan(db, CACHE_MAX_AGE_SECONDS);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
