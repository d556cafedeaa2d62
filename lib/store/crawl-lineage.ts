import type { Queryable } from './db.js';

/** Where a crawl's page came from: the depth it was queued at and the URL of the page that linked to it. */
export interface PageLineage {
  depth: number;
  /** The `url` of the item whose page linked to this one; null for the seed and sitemap pages. */
  parentUrl: string | null;
}

/**
 * The lineage of these items of a crawl, by seq (docs/crawl.md "Result lines"); an empty map for a
 * plain batch job. One read on `crawl_pages (job_id, seq)`, the parent's URL from its item.
 */
export async function crawlPageLineage(db: Queryable, jobId: string, seqs: number[]): Promise<Map<number, PageLineage>> {
  if (seqs.length === 0) return new Map();
  const result = await db.query<{ seq: string | number; depth: number; parent_url: string | null }>(
    `SELECT p.seq, p.depth, parent.url AS parent_url
       FROM crawl_pages p LEFT JOIN batch_items parent ON parent.job_id = p.job_id AND parent.seq = p.parent_seq
      WHERE p.job_id = $1 AND p.seq = ANY($2::bigint[])`,
    [jobId, seqs],
  );
  return new Map(result.rows.map((row) => [Number(row.seq), { depth: Number(row.depth), parentUrl: row.parent_url }]));
}
