/**
 * Batch jobs (docs/batch.md). Items are the queue: a dispatcher in any gateway claims queued items with
 * FOR UPDATE SKIP LOCKED and leases them (`lease_owner`, `lease_expires_at`); an expired lease is
 * re-queued. Each item owns one credit hold (`reservation_id`); a hold to give back waits in `release_at`.
 * Webhook deliveries are rows too, so a restart never loses one.
 */
export const up = `
CREATE TABLE IF NOT EXISTS batch_jobs (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text NOT NULL,
  project_id text NOT NULL,
  environment text NOT NULL,
  name text,
  status text NOT NULL,
  open boolean NOT NULL DEFAULT false,
  params jsonb NOT NULL,
  project_defaults jsonb NOT NULL,
  credit_budget_micro bigint,
  concurrency integer NOT NULL,
  priority integer NOT NULL,
  max_attempts integer NOT NULL,
  failure_threshold bigint,
  estimated_credits_micro bigint NOT NULL,
  webhook_endpoint_id text,
  total_items bigint NOT NULL DEFAULT 0,
  submitted_at timestamptz NOT NULL,
  started_at timestamptz,
  finished_at timestamptz,
  cancel_requested_at timestamptz,
  results_expire_at timestamptz NOT NULL,
  results_purged boolean NOT NULL DEFAULT false,
  error_code text,
  error_message text
);
CREATE INDEX IF NOT EXISTS batch_jobs_page ON batch_jobs (project_id, submitted_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS batch_jobs_active ON batch_jobs (priority DESC, submitted_at) WHERE status IN ('queued', 'running', 'cancelling');

CREATE TABLE IF NOT EXISTS batch_items (
  job_id text COLLATE "C" NOT NULL REFERENCES batch_jobs (id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  url text NOT NULL,
  external_id text,
  overrides jsonb NOT NULL,
  status text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  hold_micro bigint NOT NULL,
  reservation_id text,
  release_at timestamptz,
  request_id text,
  lease_owner text,
  lease_expires_at timestamptz,
  started_at timestamptz,
  finished_at timestamptz,
  http_status integer,
  credits_micro bigint NOT NULL DEFAULT 0,
  bytes bigint NOT NULL DEFAULT 0,
  duration_ms bigint NOT NULL DEFAULT 0,
  error_code text,
  error_retryable boolean,
  error_detail text,
  content_type text,
  body bytea,
  PRIMARY KEY (job_id, seq)
);
CREATE INDEX IF NOT EXISTS batch_items_queued ON batch_items (job_id, seq) WHERE status = 'queued';
CREATE INDEX IF NOT EXISTS batch_items_leases ON batch_items (lease_expires_at) WHERE status = 'running';
CREATE INDEX IF NOT EXISTS batch_items_release ON batch_items (release_at) WHERE release_at IS NOT NULL;

CREATE TABLE IF NOT EXISTS webhook_endpoints (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text NOT NULL,
  project_id text NOT NULL,
  url text NOT NULL,
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX IF NOT EXISTS webhook_endpoints_org ON webhook_endpoints (organization_id, created_at DESC);

CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id text COLLATE "C" PRIMARY KEY,
  endpoint_id text NOT NULL,
  job_id text NOT NULL,
  event text NOT NULL,
  payload text NOT NULL,
  status text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_owner text,
  lease_expires_at timestamptz,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
`;
