/**
 * Crawl hosts (docs/crawl.md "Per-host concurrency", "robots.txt"):
 * - `crawl_host_slots`: the requests of a crawl in flight to one host, one row per item holding a
 *   slot. A row whose item no longer runs under the same request id (its gateway died, the lease
 *   expired, the item finished) is stale and is deleted by the next claim on that host, so a killed
 *   gateway never keeps a host's slot.
 * - `crawl_robots`: robots.txt of the crawl's origins other than the seed's (whose file is in
 *   `crawl_jobs`), read once per origin and crawl by whichever gateway first needs it; `fetching_until`
 *   is that gateway's claim, taken over by another once it lapses.
 * Numbered 36: the next free after main's 35.
 */
export const up = `
CREATE TABLE IF NOT EXISTS crawl_host_slots (
  job_id text COLLATE "C" NOT NULL REFERENCES batch_jobs (id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  host text NOT NULL,
  request_id text NOT NULL,
  PRIMARY KEY (job_id, seq)
);
CREATE INDEX IF NOT EXISTS crawl_host_slots_host ON crawl_host_slots (job_id, host);
CREATE TABLE IF NOT EXISTS crawl_robots (
  job_id text COLLATE "C" NOT NULL REFERENCES batch_jobs (id) ON DELETE CASCADE,
  origin text NOT NULL,
  fetched boolean NOT NULL DEFAULT false,
  fetching_until timestamptz,
  robots_txt text,
  unreachable boolean NOT NULL DEFAULT false,
  PRIMARY KEY (job_id, origin)
);
`;
