/**
 * Crawls (issue 34, docs/crawl.md): a crawl is a batch job plus
 * - `crawl_jobs`: its seed, rules, robots.txt as fetched at creation, the price of one page's hold,
 *   and why it stopped early;
 * - `crawl_pages`: one row per queued page, keyed by the normalised URL. The primary key is the
 *   de-duplication: no two items of one crawl ever have the same page, whichever gateway found it.
 * - `crawl_skips`: discovered URLs not queued, counted by reason and depth.
 * Numbered 34 (the issue) so that parallel branches do not collide on a version.
 */
export const up = `
CREATE TABLE IF NOT EXISTS crawl_jobs (
  job_id text COLLATE "C" PRIMARY KEY REFERENCES batch_jobs (id) ON DELETE CASCADE,
  seed_url text NOT NULL,
  rules jsonb NOT NULL,
  robots_txt text,
  robots_unreachable boolean NOT NULL DEFAULT false,
  item_hold_micro bigint NOT NULL,
  stopped_reason text
);
CREATE TABLE IF NOT EXISTS crawl_pages (
  job_id text COLLATE "C" NOT NULL REFERENCES batch_jobs (id) ON DELETE CASCADE,
  url_key text NOT NULL,
  seq bigint NOT NULL,
  depth integer NOT NULL,
  PRIMARY KEY (job_id, url_key)
);
CREATE UNIQUE INDEX IF NOT EXISTS crawl_pages_seq ON crawl_pages (job_id, seq);
CREATE TABLE IF NOT EXISTS crawl_skips (
  job_id text COLLATE "C" NOT NULL REFERENCES batch_jobs (id) ON DELETE CASCADE,
  reason text NOT NULL,
  depth integer NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (job_id, reason, depth)
);
`;
