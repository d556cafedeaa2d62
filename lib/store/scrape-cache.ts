import type { Queryable } from './db.js';

/** One cached answer: the JSON text of a scrape success (stored as text, migration 008). */
export interface CacheEntry {
  projectId: string;
  cacheKey: string;
  engine: string;
  targetStatus: number;
  resultJson: string;
}

/** The cached JSON text when the entry is at most `maxAgeSeconds` old, else null. */
export async function selectCachedResult(db: Queryable, projectId: string, cacheKey: string, maxAgeSeconds: number): Promise<string | null> {
  const result = await db.query<{ result: string }>(
    `SELECT result FROM scrape_cache
      WHERE project_id = $1 AND cache_key = $2 AND created_at > now() - ($3::integer * interval '1 second')`,
    [projectId, cacheKey, maxAgeSeconds],
  );
  return result.rows[0]?.result ?? null;
}

export async function upsertCachedResult(db: Queryable, entry: CacheEntry): Promise<void> {
  await db.query(
    `INSERT INTO scrape_cache (project_id, cache_key, engine, target_status, result) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (project_id, cache_key) DO UPDATE
       SET created_at = now(), engine = EXCLUDED.engine, target_status = EXCLUDED.target_status, result = EXCLUDED.result`,
    [entry.projectId, entry.cacheKey, entry.engine, entry.targetStatus, entry.resultJson],
  );
}

export async function deleteCacheOlderThan(db: Queryable, maxAgeSeconds: number): Promise<number> {
  const result = await db.query(`DELETE FROM scrape_cache WHERE created_at < now() - ($1::integer * interval '1 second')`, [maxAgeSeconds]);
  return result.rowCount;
}
