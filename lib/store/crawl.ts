import type { CrawlRules, SkipReason } from '../crawl/crawl-rules.js';
import type { Queryable } from './db.js';

export interface CrawlRow {
  job_id: string;
  seed_url: string;
  rules: CrawlRules;
  robots_txt: string | null;
  robots_unreachable: boolean;
  item_hold_micro: number;
  stopped_reason: string | null;
}

export interface CrawlPage {
  urlKey: string;
  seq: number;
  depth: number;
  /** The item whose page linked to this one; absent for the seed and sitemap pages. */
  parentSeq?: number;
}

export async function insertCrawl(db: Queryable, row: CrawlRow): Promise<void> {
  await db.query(
    `INSERT INTO crawl_jobs (job_id, seed_url, rules, robots_txt, robots_unreachable, item_hold_micro) VALUES ($1, $2, $3, $4, $5, $6)`,
    [row.job_id, row.seed_url, JSON.stringify(row.rules), row.robots_txt, row.robots_unreachable, row.item_hold_micro],
  );
}

export async function getCrawl(db: Queryable, jobId: string): Promise<CrawlRow | null> {
  const result = await db.query<CrawlRow>(`SELECT * FROM crawl_jobs WHERE job_id = $1`, [jobId]);
  const row = result.rows[0];
  return row ? { ...row, item_hold_micro: Number(row.item_hold_micro) } : null;
}

export async function stopCrawl(db: Queryable, jobId: string, reason: string): Promise<void> {
  await db.query(`UPDATE crawl_jobs SET stopped_reason = $2 WHERE job_id = $1 AND stopped_reason IS NULL`, [jobId, reason]);
}

/** A plain insert: the primary key refuses a page queued twice (the caller filtered known ones under the job lock). */
export async function insertCrawlPages(db: Queryable, jobId: string, pages: CrawlPage[]): Promise<void> {
  if (pages.length === 0) return;
  await db.query(
    `INSERT INTO crawl_pages (job_id, url_key, seq, depth, parent_seq)
     SELECT $1, x.url_key, x.seq, x.depth, x.parent_seq FROM jsonb_to_recordset($2::jsonb) AS x(url_key text, seq bigint, depth integer, parent_seq bigint)`,
    [jobId, JSON.stringify(pages.map((page) => ({ url_key: page.urlKey, seq: page.seq, depth: page.depth, parent_seq: page.parentSeq ?? null })))],
    { name: 'crawl_insert_pages' },
  );
}

/** Of these keys, the ones already queued in the crawl. */
export async function knownCrawlPages(db: Queryable, jobId: string, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  // The keys travel as one JSON text, so the statement is prepared once (lib/store/pglite-prepared.ts takes no arrays).
  const result = await db.query<{ url_key: string }>(
    `SELECT url_key FROM crawl_pages WHERE job_id = $1 AND url_key IN (SELECT jsonb_array_elements_text($2::jsonb))`,
    [jobId, JSON.stringify(keys)],
    { name: 'crawl_known_pages' },
  );
  return new Set(result.rows.map((row) => row.url_key));
}

/** The link depth of each of these queued pages (by item seq); a seq that is no page of the crawl is missing. */
export async function crawlPageDepths(db: Queryable, jobId: string, seqs: number[]): Promise<Map<number, number>> {
  if (seqs.length === 0) return new Map();
  const result = await db.query<{ seq: number; depth: number }>(
    `SELECT seq, depth FROM crawl_pages WHERE job_id = $1 AND seq IN (SELECT jsonb_array_elements_text($2::jsonb)::bigint)`,
    [jobId, JSON.stringify(seqs)],
    { name: 'crawl_page_depths' },
  );
  return new Map(result.rows.map((row) => [Number(row.seq), Number(row.depth)]));
}

/**
 * Counts skipped URLs (keys by `reason@depth`) once per distinct URL in the crawl: a URL already
 * counted, for any reason, is not counted again. Callers hold the job's lock.
 */
export async function countCrawlSkips(db: Queryable, jobId: string, skips: Map<string, string[]>): Promise<void> {
  const rows = [...skips].flatMap(([key, urls]) => {
    const [reason, depth] = key.split('@');
    return urls.map((url_key) => ({ url_key, reason, depth: Number(depth) }));
  });
  if (rows.length === 0) return;
  await db.query(
    `WITH x AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(url_key text, reason text, depth integer)),
     fresh AS (INSERT INTO crawl_skipped_urls (job_id, url_key) SELECT DISTINCT $1, url_key FROM x ON CONFLICT DO NOTHING RETURNING url_key)
     INSERT INTO crawl_skips (job_id, reason, depth, count)
     SELECT $1, x.reason, x.depth, count(*) FROM x JOIN fresh USING (url_key) GROUP BY x.reason, x.depth
     ON CONFLICT (job_id, reason, depth) DO UPDATE SET count = crawl_skips.count + EXCLUDED.count`,
    [jobId, JSON.stringify(rows)],
    { name: 'crawl_count_skips' },
  );
}

export function skipKey(reason: SkipReason, depth: number): string {
  return `${reason}@${depth}`;
}

export interface CrawlCounts {
  pagesByDepth: { depth: number; queued: number }[];
  skipped: { reason: string; depth: number; count: number }[];
}

export async function crawlCounts(db: Queryable, jobId: string): Promise<CrawlCounts> {
  const pages = await db.query<{ depth: number; n: string }>(`SELECT depth, count(*) AS n FROM crawl_pages WHERE job_id = $1 AND seq >= 0 GROUP BY depth ORDER BY depth`, [jobId]);
  const skips = await db.query<{ reason: string; depth: number; count: string }>(`SELECT reason, depth, count FROM crawl_skips WHERE job_id = $1 ORDER BY reason, depth`, [jobId]);
  return {
    pagesByDepth: pages.rows.map((row) => ({ depth: Number(row.depth), queued: Number(row.n) })),
    skipped: skips.rows.map((row) => ({ reason: row.reason, depth: Number(row.depth), count: Number(row.count) })),
  };
}

export async function crawlStopReason(db: Queryable, jobId: string): Promise<string | null> {
  const result = await db.query<{ stopped_reason: string | null }>(`SELECT stopped_reason FROM crawl_jobs WHERE job_id = $1`, [jobId], { name: 'crawl_stop_reason' });
  return result.rows[0]?.stopped_reason ?? null;
}

/** The organization's creation date and monthly allowance, read now: they may have changed since the crawl was submitted. */
export async function organizationAllowance(db: Queryable, organizationId: string): Promise<{ created_at: Date; monthly_credits_micro: number } | null> {
  const result = await db.query<{ created_at: Date; monthly_credits_micro: string }>(`SELECT created_at, monthly_credits_micro FROM organizations WHERE id = $1`, [organizationId]);
  const row = result.rows[0];
  return row ? { created_at: row.created_at, monthly_credits_micro: Number(row.monthly_credits_micro) } : null;
}

/**
 * Takes the next turn to request `host` in this crawl, `delayMs` after the previous turn, in one
 * atomic upsert (every gateway's turns queue on the same row). Answers how long to wait for it.
 */
export async function claimHostTurn(db: Queryable, jobId: string, host: string, delayMs: number): Promise<number> {
  const result = await db.query<{ wait_ms: string }>(
    `INSERT INTO crawl_host_turns AS t (job_id, host, next_at) VALUES ($1, $2, clock_timestamp() + $3::bigint * interval '1 millisecond')
     ON CONFLICT (job_id, host) DO UPDATE SET next_at = GREATEST(t.next_at, clock_timestamp()) + $3::bigint * interval '1 millisecond'
     RETURNING GREATEST(0, EXTRACT(EPOCH FROM (t.next_at - clock_timestamp())) * 1000 - $3::bigint) AS wait_ms`,
    [jobId, host, delayMs],
  );
  return Math.ceil(Number(result.rows[0]?.wait_ms ?? 0));
}

/**
 * Records that the page queued as item `seq` answered from `finalKey` (a redirect). True when
 * another item already has that page: this one is then a duplicate. The alias row takes the
 * negative seq `-(seq + 1)` so a retry of the same item finds its own row again.
 */
export async function claimRedirectTarget(db: Queryable, jobId: string, seq: number, finalKey: string, depth: number): Promise<boolean> {
  const aliasSeq = -(seq + 1);
  await db.query(`INSERT INTO crawl_pages (job_id, url_key, seq, depth) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, [jobId, finalKey, aliasSeq, depth]);
  const owner = await db.query<{ seq: string }>(`SELECT seq FROM crawl_pages WHERE job_id = $1 AND url_key = $2`, [jobId, finalKey]);
  return Number(owner.rows[0]?.seq) !== aliasSeq;
}
