import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Workers' heartbeat interval when HEARTBEAT_INTERVAL_MS is unset (the gateway's membership assumes it until it hears one). */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 2000;

/** A setting that may be unset or blank (both mean absent); surrounding spaces are dropped. */
export const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

export const LogLevelSchema = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

/**
 * Every setting of every program, read once from the environment at start and passed in.
 * The README's configuration table mirrors this schema.
 */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: optionalText,
  NATS_URL: optionalText,
  /** PostgreSQL connections of one process; unset: 10 for requests plus the batch dispatcher's share (lib/store/pool-sizing.ts). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(1000).optional(),
  /** How long a request waits for a free PostgreSQL connection before a 503 naming the exhausted pool. */
  DATABASE_POOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  /** Prefix for every NATS subject, so several deployments can share one NATS server. */
  NATS_NAMESPACE: z.string().regex(/^[A-Za-z0-9_-]*$/).default(''),
  /** Base of problem `type`/`doc_url` links; unset: this deployment's own reference (`docsBaseOf`). */
  DOCS_URL: z.string().url().optional(),
  TRAWLER_BOOTSTRAP_KEY: z.string().optional(),
  LOG_LEVEL: LogLevelSchema,
  /** Open connections one gateway accepts; one more is closed at once (docs/platform.md "Connection limits"). */
  GATEWAY_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(4096),
  /** A request's headers and body must have arrived within this, milliseconds; else a 400 problem and the connection closes. */
  GATEWAY_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(120_000),
  /** Test-only: allow targets at exactly 127.0.0.1. Off by default; the SSRF policy blocks loopback. */
  TRAWLER_ALLOW_LOOPBACK_TARGETS: bool.default(false),
  /** Seconds an API-key lookup may be served from the gateway's cache (revocation bound is 60 s). */
  KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(30),
  /** Overall time budget of one scrape, milliseconds. */
  SCRAPE_BUDGET_MS: z.coerce.number().int().min(1000).max(300_000).default(60_000),
  /** How often a worker announces itself; a worker is dropped after 3 missed periods. */
  HEARTBEAT_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(DEFAULT_HEARTBEAT_INTERVAL_MS),
  /** Bound on finishing in-flight work after SIGTERM, milliseconds. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
  /**
   * After SIGTERM, how long a gateway keeps serving with /readyz answering 503 `draining` before it
   * closes its listener, so load balancers take it out first (part of SHUTDOWN_GRACE_MS). 0: closes at once.
   */
  SHUTDOWN_DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(120_000).default(0),
  /**
   * Port of the process's own /metrics and /healthz; unset: 9464 for the gateway (and `all`), 9465
   * for a worker. A taken port moves to the next free one with a warning (lib/metrics-server.ts).
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  WORKER_POOL: z.string().default('default'),
  WORKER_CAPACITY: z.coerce.number().int().min(1).max(1000).optional(),
  /** Pages up to this many characters are converted on the worker's event loop, not a content thread (worker/content/content-limits.ts). */
  CONTENT_INLINE_MAX_CHARS: z.coerce.number().int().min(0).max(1_000_000).optional(),
  /** Engines the all-in-one process starts: comma list, or `auto` (fetch + render engines whose browser is found). */
  EMBEDDED_ENGINES: z.string().default('auto'),
  CHROMIUM_PATH: z.string().optional(),
  OBSCURA_PATH: z.string().optional(),
  OBSCURA_CDP_URL: optionalText,
  /** GET /v1/browser (docs/remote-browser.md): on wherever a render engine is deployed; false answers 501 and workers open no relay port. */
  BROWSER_ROUTE_ENABLED: bool.default(true),
  /** Remote-browser connections one worker relays at once, per render engine. */
  BROWSER_SESSIONS: z.coerce.number().int().min(1).max(1000).default(4),
  /** Where a worker's remote-browser relay port listens (gateways connect to it; docs/remote-browser.md "Transport"). */
  BROWSER_RELAY_HOST: z.string().default('127.0.0.1'),
  /** The relay port; 0 takes any free port (the port travels with each lease, so nothing needs to know it ahead). */
  BROWSER_RELAY_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** The host name gateways reach the relay port by; unset: BROWSER_RELAY_HOST, or the machine's host name when that is a wildcard. */
  BROWSER_RELAY_ADVERTISE_HOST: optionalText,
  REQUEST_LOG_RETENTION_HOURS: z.coerce.number().int().min(1).max(24 * 90).default(72),
  /** Longest wait of a request-log entry for its batched write (docs/request-log.md, "Batched writes"). */
  REQUEST_LOG_FLUSH_MS: z.coerce.number().int().min(1).max(10_000).default(50),
  /** Seconds between maintenance passes over the embedded store (VACUUM (ANALYZE) and CHECKPOINT: PGlite has no autovacuum and no checkpointer); 0 turns them off. */
  STORE_VACUUM_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
  /** Monthly allowance given to organizations created by bootstrap or the CLI, whole credits. */
  DEFAULT_MONTHLY_CREDITS: z.coerce.number().int().min(0).default(100_000),
  /** Monthly allowance of every organization's test ledger (`svc_test_` keys), whole credits; kept small: test keys prove an integration, not a workload. */
  TEST_MONTHLY_CREDITS: z.coerce.number().int().min(0).default(1_000),
  DEFAULT_RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(20),
  DEFAULT_CONCURRENCY_LIMIT: z.coerce.number().int().min(1).default(10),
  /** How often each gateway's batch dispatcher looks for queued items, expired leases and holds to return. */
  BATCH_DISPATCH_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  /** Batch items one gateway runs at once (across all jobs); as many as one job may ask for, so one job of 50 fills it. */
  BATCH_DISPATCH_CAPACITY: z.coerce.number().int().min(1).max(1000).default(50),
  /** Lease on a running batch item; renewed while it runs, re-queued when a crashed gateway stops renewing. */
  BATCH_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
  /** Hours a batch job's results stay readable after submission (results_expire_at). */
  BATCH_RESULTS_RETENTION_HOURS: z.coerce.number().int().min(1).max(24 * 90).default(72),
  /** Delay before the hold of a failed, cancelled or skipped batch item goes back to the allowance. */
  BATCH_HOLD_RETURN_DELAY_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** The dashboard's own port (docs/dashboard.md): a number (0 = any free port) or `off`. */
  DASHBOARD_PORT: z
    .string()
    .default('8081')
    .transform((v) => v.trim().toLowerCase())
    .pipe(z.union([z.literal('off'), z.string().regex(/^\d+$/, 'a port number or off').transform(Number).pipe(z.number().int().max(65535))])),
  /** 32 bytes, hex or base64, sealing the Default key's secret; unset: a key file in DATA_DIR (docs/dashboard.md). */
  DASHBOARD_SECRET_KEY: optionalText,
  /** Password hashes (scrypt, 32 MiB each) one dashboard computes at once; 4 more per hash may wait, the rest get 429. */
  DASHBOARD_PASSWORD_HASHES: z.coerce.number().int().min(1).max(64).default(2),
  /** Sign-ins one client address may try in 15 minutes without succeeding; then it is refused for 15 minutes. */
  DASHBOARD_SIGN_IN_CLIENT_LIMIT: z.coerce.number().int().min(1).max(100_000).default(30),
  /** Open connections the dashboard accepts; one more is closed at once. */
  DASHBOARD_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).default(256),
  /**
   * Peers whose X-Forwarded-For / X-Forwarded-Proto the dashboard believes (Express `trust proxy`:
   * comma list of addresses, CIDRs or `loopback`, `linklocal`, `uniquelocal`). The per-client sign-in
   * limit counts the address they name, so behind an ingress list the ingress here.
   */
  DASHBOARD_TRUST_PROXY: z.string().trim().min(1).default('loopback'),
  /** Hours a dashboard sign-in lasts. */
  DASHBOARD_SESSION_HOURS: z.coerce.number().int().min(1).max(24 * 30).default(12),
  /** The managed proxy pool's exits, a JSON or YAML file (docs/proxy-pools.md); unset: no managed pool. */
  PROXY_POOLS_FILE: optionalText,
  /** A failing pool exit's first cooldown; each further consecutive failure doubles it up to PROXY_COOLDOWN_MAX_MS. */
  PROXY_COOLDOWN_BASE_MS: z.coerce.number().int().min(1).max(86_400_000).default(30_000),
  PROXY_COOLDOWN_MAX_MS: z.coerce.number().int().min(1).max(86_400_000).default(1_800_000),
  /** How stale a gateway's copy of the pool health shared through the store may be; 0 reads it for every request. */
  PROXY_HEALTH_REFRESH_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  /**
   * The gateway watches PROXY_POOLS_FILE's directory and re-reads the file at least this often, applying
   * a changed file to new requests (a file that fails validation keeps the pools in use); 0: only SIGHUP reloads.
   */
  PROXY_POOLS_WATCH_MS: z.coerce.number().int().min(0).max(3_600_000).default(5000),
  /** A per-domain health row of a pool exit not changed for this long is deleted (unless cooling down). */
  PROXY_DOMAIN_HEALTH_RETENTION_MS: z.coerce.number().int().min(60_000).max(30 * 86_400_000).default(86_400_000),
  /** At most this many per-domain health rows are kept; beyond it the least recently changed go first. */
  PROXY_DOMAIN_HEALTH_MAX_ROWS: z.coerce.number().int().min(100).max(10_000_000).default(20_000),
  /** Chat Completions base of the extraction model (its `/v1`); with AI_MODEL it turns `ai_extract` on (docs/ai-extract.md). */
  AI_BASE_URL: optionalText.pipe(z.string().url().optional()),
  /** Bearer key sent to AI_BASE_URL; unset sends none (a local server). */
  AI_API_KEY: optionalText,
  /** Model name sent in every Chat Completions request. */
  AI_MODEL: optionalText,
  /** Model calls at once across the whole deployment (shared by every gateway replica). */
  AI_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(4),
  /** Longest wait for one model answer, milliseconds (never past the scrape's own budget). */
  AI_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  /** Characters of page markdown sent to the model; longer pages are cut at a block boundary. */
  AI_INPUT_MAX_CHARS: z.coerce.number().int().min(1000).max(2_000_000).default(60_000),
  /** First webhook retry delay; each later retry waits four times longer (5 attempts in all). */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(10_000),
});

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv): Config {
  return parseEnvironment(ConfigSchema, env, 'configuration');
}

/** Parses one program's settings from the environment, failing with every bad setting named. */
export function parseEnvironment<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv, what: string): z.output<T> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid ${what}:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** Where a deployment serves its own error reference: `{origin}/v1/reference/errors` (lib/api-reference/router.ts). */
export const OWN_DOCS_PATH = '/v1/reference';

/**
 * The documentation base for problem links: DOCS_URL when the deployment sets one, else the gateway's own
 * reference at the origin the caller reached (`origin`, e.g. from the Host header), so a self-hosted
 * deployment never links to a documentation host it does not have.
 */
export function docsBaseOf(config: Pick<Config, 'DOCS_URL' | 'HOST' | 'PORT'>, origin?: string): string {
  if (config.DOCS_URL) return config.DOCS_URL;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return `${origin ?? `http://${host}:${config.PORT}`}${OWN_DOCS_PATH}`;
}
