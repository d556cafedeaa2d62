export const up = `
CREATE TABLE IF NOT EXISTS scrape_cache (
  project_id text NOT NULL,
  cache_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  engine text NOT NULL,
  target_status integer NOT NULL,
  result jsonb NOT NULL,
  PRIMARY KEY (project_id, cache_key)
);
CREATE INDEX IF NOT EXISTS scrape_cache_age ON scrape_cache (created_at);
`;
