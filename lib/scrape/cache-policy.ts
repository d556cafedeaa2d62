import type { ScrapeParams } from './params-schema.js';

/** Cache lifetime when `cache_ttl` is omitted (docs/parameters.md). */
export const DEFAULT_CACHE_TTL_SECONDS = 3600;

/** Whether a result may be read from or written to the cache (docs/parameters.md "cache"). */
export function isCacheable(params: ScrapeParams): boolean {
  return (
    params.method === 'GET' &&
    params.cache &&
    params.cache_ttl !== 0 &&
    params.session_id === null &&
    params.actions === null &&
    params.sticky_key === null
  );
}

export function effectiveCacheTtlSeconds(params: ScrapeParams): number {
  return params.cache_ttl ?? DEFAULT_CACHE_TTL_SECONDS;
}
