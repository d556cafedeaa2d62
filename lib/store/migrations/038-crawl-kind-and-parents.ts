/**
 * What a crawl's answers say beyond a batch's (docs/crawl.md "Result lines", docs/batch.md "Job and items"):
 * - `batch_jobs.kind`: `crawl` for a crawl's job (set in the transaction that creates it), else `batch`;
 *   the job object shows it, so `GET /v1/batch` marks crawls without a second read. Existing crawls are
 *   marked from `crawl_jobs`.
 * - `crawl_pages.parent_seq`: the item whose page linked to this one (null for the seed, sitemap pages
 *   and redirect aliases); result lines give its URL as `parent_url`. Pages queued before this migration
 *   have none. Numbered 38: the next free after main's 37.
 */
export const up = `
ALTER TABLE batch_jobs ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'batch' CHECK (kind IN ('batch', 'crawl'));
UPDATE batch_jobs SET kind = 'crawl' WHERE kind <> 'crawl' AND id IN (SELECT job_id FROM crawl_jobs);
ALTER TABLE crawl_pages ADD COLUMN IF NOT EXISTS parent_seq bigint;
`;
