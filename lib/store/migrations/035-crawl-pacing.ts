/**
 * Crawl politeness (docs/crawl.md "Per-host delay"): `crawl_host_turns` holds, per crawl and host,
 * when the next request to that host may start. Every gateway claims its turn with one atomic
 * upsert, so the spacing holds across gateways. `crawl_skipped_urls`: each URL a crawl left out, so
 * a URL linked from many pages is counted once (docs/crawl.md "Counts"). Numbered 35: the next free after main's 34.
 */
export const up = `
CREATE TABLE IF NOT EXISTS crawl_host_turns (
  job_id text COLLATE "C" NOT NULL REFERENCES batch_jobs (id) ON DELETE CASCADE,
  host text NOT NULL,
  next_at timestamptz NOT NULL,
  PRIMARY KEY (job_id, host)
);
CREATE TABLE IF NOT EXISTS crawl_skipped_urls (
  job_id text COLLATE "C" NOT NULL REFERENCES batch_jobs (id) ON DELETE CASCADE,
  url_key text NOT NULL,
  PRIMARY KEY (job_id, url_key)
);
`;
