import { createHash } from 'node:crypto';
import { ScrapeSuccessSchema, type ScrapeSuccess } from '../../lib/protocol/index.js';
import { effectiveCacheTtlSeconds, isBillableStatus } from '../../lib/scrape/cost.js';
import type { ScrapeParams } from '../../lib/scrape/types.js';
import type { Queryable } from '../../lib/store/db.js';

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
  const result = await db.query<{ result: unknown }>(
    `SELECT result FROM scrape_cache
      WHERE project_id = $1 AND cache_key = $2 AND created_at > now() - ($3::integer * interval '1 second')`,
    [projectId, cacheKey(params), effectiveCacheTtlSeconds(params)],
  );
  const row = result.rows[0];
  if (!row) return null;
  const parsed = ScrapeSuccessSchema.safeParse(row.result);
  return parsed.success ? parsed.data : null;
}

/** Only billable successes are worth serving again; a 500 page or an undelivered screenshot is not. */
export async function writeCache(db: Queryable, projectId: string, params: ScrapeParams, success: ScrapeSuccess): Promise<void> {
  if (!isBillableStatus(success.target_status, params) || success.screenshot_delivered === false) return;
  await db.query(
    `INSERT INTO scrape_cache (project_id, cache_key, engine, target_status, result) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (project_id, cache_key) DO UPDATE
       SET created_at = now(), engine = EXCLUDED.engine, target_status = EXCLUDED.target_status, result = EXCLUDED.result`,
    [projectId, cacheKey(params), success.engine, success.target_status, JSON.stringify(success)],
  );
}

export async function purgeCache(db: Queryable): Promise<number> {
  const result = await db.query(`DELETE FROM scrape_cache WHERE created_at < now() - ($1::integer * interval '1 second')`, [
    CACHE_MAX_AGE_SECONDS,
  ]);
  return result.rowCount;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
