import type { Registry } from 'prom-client';
import type { Bus } from '../lib/bus/bus.js';
import type { Config } from '../lib/config.js';
import type { EgressPolicy } from '../lib/egress/policy.js';
import type { ExitPool } from '../lib/proxy-pool/exit-pool.js';
import type { Ledger } from '../lib/billing/ledger.js';
import type { Logger } from '../lib/log.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { Db } from '../lib/store/db.js';
import type { ModelExtraction } from './ai/model-extraction.js';
import type { KeyResolver } from './auth/key-resolver.js';
import type { ConcurrencyLimiter } from './limits/concurrency.js';
import type { RateLimiter } from './limits/rate-limiter.js';
import type { WorkerDirectory } from './worker-directory.js';
import type { RequestLogWriter } from './request-log/log-writer.js';
import type { GatewayMetrics } from './metrics.js';
import type { WorkTracker } from './work-tracker.js';
import type { BrowserConnections } from './browser/connections.js';

/** Everything the gateway's routes depend on, built once in main.ts and passed in. */
export interface GatewayContext {
  config: Config;
  db: Db;
  /** The credit ledger every paid operation holds and settles through (lib/billing/ledger.ts). */
  ledger: Ledger;
  bus: Bus;
  directory: WorkerDirectory;
  logger: Logger;
  registry: Registry;
  metrics: GatewayMetrics;
  keys: KeyResolver;
  rateLimiter: RateLimiter;
  concurrency: ConcurrencyLimiter;
  egressPolicy: EgressPolicy;
  version: string;
  /** Seals the store's secrets (webhook secrets): lib/store/sealing-key.ts. */
  box: SecretBox;
  /** The batched request-log writer; its pending entries are found by GET /v1/requests/{id}. */
  requestLog: RequestLogWriter;
  /** ai_extract's model; null when none is configured (503 before anything is spent). */
  ai: ModelExtraction | null;
  /** Scrapes under way: shutdown waits for them before the store and bus close. */
  work: WorkTracker;
  /** The managed proxy pool (PROXY_POOLS_FILE), or null when the deployment configures none. */
  exitPool: ExitPool | null;
  /** Remote-browser connections this gateway relays (GET /v1/browser). */
  browsers: BrowserConnections;
}
